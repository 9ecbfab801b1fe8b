import Foundation
import Hummingbird
import SessionKitSupport

/// Builders for JSON responses.
enum JSONResponse {
    static func make(_ object: [String: JSONValue], status: HTTPResponse.Status = .ok) -> Response {
        make(encodable: JSONValue.object(object), status: status)
    }

    static func make(encodable value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(
        to location: String,
        headers extra: HTTPFields = [:],
        status: HTTPResponse.Status = .found
    ) -> Response {
        var headers = extra
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers)
    }
}
