import Foundation
import HTTPTypes
import Hummingbird
import NIOHTTP1

/// The headers a proxy must not pass on (RFC 9110 7.6.1), and the ones this proxy withholds on purpose.
enum HopByHopHeaders {
    /// Connection-specific headers, always removed, with any header the `Connection` header names.
    static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
        "trailer", "transfer-encoding", "upgrade",
    ]

    /// Never sent upstream: the browser's cookie (the session id is the BFF's, not the API's), any
    /// `Authorization` it sent (replaced by the user's access token), the host and the body's framing (the
    /// client sets them).
    static let withheldFromUpstream: Set<String> = ["cookie", "authorization", "dpop", "host", "content-length"]

    /// Never sent to the browser: cookies the upstream sets (they would land on the app's origin), the body's
    /// framing (the server sets it), and the headers that ``hardening`` replaces.
    static let withheldFromBrowser: Set<String> = [
        "set-cookie", "content-length", "cache-control", "pragma", "expires", "x-content-type-options",
        "content-security-policy", "content-security-policy-report-only", "x-frame-options",
    ]

    /// Set on every forwarded answer, whatever the upstream sent, because the answer is served on the app's
    /// origin with the user's authority (the choice Duende BFF and the Curity token handler make for API
    /// responses, and OWASP's for authenticated data):
    /// - `Cache-Control: private, no-store`: one user's data never lands in a shared or the browser's cache.
    /// - `X-Content-Type-Options: nosniff`: a JSON answer is never run as a script or style sheet.
    /// - `Content-Security-Policy: sandbox; default-src 'none'; frame-ancestors 'none'`: an HTML answer opened
    ///   as a page runs no script and reaches nothing on the app's origin, and no site may frame it.
    /// Any `Access-Control-*` header is removed: the upstream cannot grant other origins CORS access to the
    /// app's origin through the proxy.
    static let hardening: [(HTTPField.Name, String)] = [
        (.cacheControl, "private, no-store"),
        (HTTPField.Name("X-Content-Type-Options")!, "nosniff"),
        (.contentSecurityPolicy, "sandbox; default-src 'none'; frame-ancestors 'none'"),
    ]

    static let removedUpstream = connectionSpecific.union(withheldFromUpstream)
    static let removedDownstream = connectionSpecific.union(withheldFromBrowser)

    /// `removed` and the names listed in `Connection` headers (lowercased); `removed` itself, with no copy, when
    /// they list only names it has already (`keep-alive`, `close`: what nearly every peer sends).
    static func removing(_ removed: Set<String>, andNamedIn values: some Sequence<Substring>) -> Set<String> {
        var names = removed
        for value in values {
            for item in value.utf8.split(separator: UInt8(ascii: ",")) {
                let name = Substring(item).trimmingASCIIWhitespace().lowercased()
                if !name.isEmpty, !removed.contains(name) { names.insert(name) }
            }
        }
        return names
    }

    /// The request's headers as they go upstream: without those in `removed` (``removedUpstream`` and any the
    /// caller withholds too) and those the request's `Connection` header names.
    static func upstream(_ fields: HTTPFields, removing removed: Set<String>) -> HTTPHeaders {
        let listed = fields[values: .connection]
        let removed = listed.isEmpty ? removed : removing(removed, andNamedIn: listed.map { Substring($0) })
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count)
        for field in fields where !removed.contains(field.name.canonicalName) {
            headers.add(name: field.name.rawName, value: field.value)
        }
        return headers
    }

    /// The upstream's response headers as they go to the browser: without hop-by-hop and withheld ones, and
    /// with ``hardening`` applied.
    ///
    /// Each name is parsed once, as an `HTTPField.Name` (which checks and lowercases it), and looked up by its
    /// canonical form: a forwarded answer's headers are the hottest loop of the proxy.
    static func downstream(_ headers: HTTPHeaders) -> HTTPFields {
        let listed = headers[canonicalForm: "connection"]
        let removed = listed.isEmpty ? removedDownstream : removing(removedDownstream, andNamedIn: listed)
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count + hardening.count)
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            let canonical = fieldName.canonicalName
            guard !removed.contains(canonical), !canonical.hasPrefix("access-control-") else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        for (name, value) in hardening { fields.append(HTTPField(name: name, value: value)) }
        return fields
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
