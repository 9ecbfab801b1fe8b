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
    static let withheldFromUpstream: Set<String> = ["cookie", "authorization", "host", "content-length"]

    /// Never sent to the browser: cookies the upstream sets (they would land on the app's origin) and the
    /// body's framing (the server sets it).
    static let withheldFromBrowser: Set<String> = ["set-cookie", "content-length"]

    static let removedUpstream = connectionSpecific.union(withheldFromUpstream)
    static let removedDownstream = connectionSpecific.union(withheldFromBrowser)

    /// The names listed in `Connection` headers, lowercased.
    static func named(inConnection values: [String]) -> Set<String> {
        Set(values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }

    /// The request's headers as they go upstream: without those in `removed` (``removedUpstream`` and any the
    /// caller withholds too) and those the request's `Connection` header names.
    static func upstream(_ fields: HTTPFields, removing removed: Set<String>) -> HTTPHeaders {
        let listed = fields[values: .connection]
        let removed = listed.isEmpty ? removed : removed.union(named(inConnection: listed))
        var headers = HTTPHeaders()
        for field in fields where !removed.contains(field.name.canonicalName) {
            headers.add(name: field.name.rawName, value: field.value)
        }
        return headers
    }

    /// The upstream's response headers as they go to the browser.
    static func downstream(_ headers: HTTPHeaders) -> HTTPFields {
        let listed = headers[canonicalForm: "connection"].map(String.init)
        let removed = listed.isEmpty ? removedDownstream : removedDownstream.union(named(inConnection: listed))
        var fields = HTTPFields()
        for (name, value) in headers where !removed.contains(name.lowercased()) {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return fields
    }
}
