package import HTTPTypes
package import Hummingbird
package import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The responses SessionKit's servers give, built once for the emulator and the back end for front ends: JSON for
/// programs, short HTML pages and redirects for browsers. None is cached (`Cache-Control: no-store`: they carry
/// tokens, codes and session state) or sniffed (`X-Content-Type-Options: nosniff`).
package enum Answer {
    /// `value` as JSON, its object keys sorted and slashes left unescaped, with `headers` added.
    package static func json(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) -> Response {
        let (head, body) = jsonParts(value, status: status, headers: headers)
        return Response(status: head.status, headers: head.headerFields, body: ResponseBody(byteBuffer: body))
    }

    /// ``json(_:status:headers:)``'s head and body, for a server that writes them to a channel itself.
    package static func jsonParts(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) -> (HTTPResponse, ByteBuffer) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var status = status
        let body: Data
        do {
            body = try encoder.encode(value)
        } catch {
            // The servers encode their own value types, which always encode; were one not to, the client gets the
            // server's error, never a made-up success.
            status = .internalServerError
            body = Data(#"{"error":"server_error","error_description":"the answer could not be encoded"}"#.utf8)
        }
        return (head(status, contentType: "application/json; charset=utf-8", headers), ByteBuffer(bytes: body))
    }

    /// A JSON object given as a literal.
    package static func json(
        _ object: [String: JSONValue], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) -> Response {
        json(JSONValue.object(object), status: status, headers: headers)
    }

    /// An HTML page (text already made safe, see `HTMLEscaping`), with `headers` added.
    package static func html(_ page: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        make(status, contentType: "text/html; charset=utf-8", body: ByteBuffer(string: page), headers)
    }

    /// A redirect to `location`: `302 Found` by default, `303 See Other` where the browser must follow with GET.
    package static func redirect(
        to location: String, status: HTTPResponse.Status = .found, headers: HTTPFields = [:]
    ) -> Response {
        var fields = headers
        fields[.location] = location
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields)
    }

    private static func make(
        _ status: HTTPResponse.Status, contentType: String, body: ByteBuffer, _ headers: HTTPFields
    ) -> Response {
        let head = head(status, contentType: contentType, headers)
        return Response(status: status, headers: head.headerFields, body: ResponseBody(byteBuffer: body))
    }

    private static func head(_ status: HTTPResponse.Status, contentType: String, _ headers: HTTPFields) -> HTTPResponse
    {
        var fields = headers
        fields[.contentType] = contentType
        fields[.cacheControl] = "no-store"
        fields[.xContentTypeOptions] = "nosniff"
        return HTTPResponse(status: status, headerFields: fields)
    }
}

extension HTTPField.Name {
    /// `X-Content-Type-Options`.
    package static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
