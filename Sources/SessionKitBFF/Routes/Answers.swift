import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SessionKit

/// The answers a back end for front ends gives: JSON for the front end's scripts, never cached, redirects and
/// short HTML pages for the browser itself.
enum Answers {
    /// A JSON answer.
    static func json(_ status: HTTPResponse.Status, _ value: some Encodable, setCookies: [String] = []) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An error answer: `{"error": code, "message": what to do}`, plus `sign_in` when the front end should send
    /// the user to sign in.
    static func error(
        _ status: HTTPResponse.Status, _ code: String, _ message: String, signIn: String? = nil,
        setCookies: [String] = [], retryAfter: Int? = nil
    ) -> Response {
        let answer = ErrorAnswer(
            error: code, message: message, signIn: signIn, signedIn: status == .unauthorized ? false : nil)
        var response = json(status, answer, setCookies: setCookies)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    /// A redirect (`303 See Other`: the browser follows it with GET).
    static func redirect(to location: String, setCookies: [String] = []) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: .seeOther, headers: headers)
    }

    /// A short HTML page for the browser itself (a failed sign-in), with a link to start again.
    static func page(
        _ status: HTTPResponse.Status, title: String, text: String, link: String, setCookies: [String] = []
    ) -> Response {
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title></head>
            <body><h1>\(escape(title))</h1><p>\(escape(text))</p><p><a href="\(escape(link))">Sign in again</a></p>
            </body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// The body of every error answer.
struct ErrorAnswer: Encodable {
    var error: String
    var message: String
    var signIn: String?
    var signedIn: Bool?

    enum CodingKeys: String, CodingKey {
        case error, message
        case signIn = "sign_in"
        case signedIn = "signed_in"
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
