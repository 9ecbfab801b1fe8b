import Foundation
import Hummingbird
import SessionKitSupport

/// The parameters of a request body, from `application/x-www-form-urlencoded` or JSON, as Auth0 accepts both.
struct RequestParameters: Sendable {
    private(set) var values: [String: String]

    init(_ values: [String: String] = [:]) { self.values = values }

    subscript(name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// Parses a form-encoded string (`a=1&b=two+words`).
    static func form(_ text: String) -> RequestParameters {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : ""
            if values[name] == nil { values[name] = value }
        }
        return RequestParameters(values)
    }

    private static func decode(_ part: Substring) -> String {
        let spaced = part.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Parses a JSON object body; scalar members become strings, others are ignored.
    static func json(_ data: Data) throws(OAuthError) -> RequestParameters {
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: data) else {
            throw OAuthError(.invalidRequest, "The request body is not a JSON object.")
        }
        var values: [String: String] = [:]
        for (name, value) in object {
            switch value {
            case .string(let text): values[name] = text
            case .bool(let flag): values[name] = flag ? "true" : "false"
            case .int(let number): values[name] = String(number)
            case .double(let number):
                let isWhole = number.rounded() == number && abs(number) < 9e15
                values[name] = isWhole ? String(Int64(number)) : String(number)
            case .null, .array, .object: continue
            }
        }
        return RequestParameters(values)
    }

    /// Reads the body of `request` by its content type (form by default; JSON when declared).
    static func body(of request: inout Request, limit: Int = 64 * 1024) async throws(OAuthError) -> RequestParameters {
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw OAuthError(.invalidRequest, "The request body is too large or unreadable.")
        }
        let data = Data(buffer.readableBytesView)
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if contentType.hasPrefix("application/json") {
            return try json(data)
        }
        return form(String(decoding: data, as: UTF8.self))
    }

    /// The query parameters of `request`.
    static func query(of request: Request) -> RequestParameters {
        form(request.uri.query ?? "")
    }

    /// Form-encodes `values` (for redirect queries and HTML forms).
    static func encode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { name, value in
            let n = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
            let v = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
            return "\(n)=\(v)"
        }.joined(separator: "&")
    }
}
