import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SessionKit

/// The answers a back end for front ends gives: JSON for the front end's scripts, never cached, and the
/// mapping from a session failure to a status.
enum Answers {
    /// A JSON answer built from plain values.
    static func json(_ status: HTTPResponse.Status, _ object: [String: Any], setCookies: [String] = []) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An error answer: `{"error": code, "message": what to do}`, plus `sign_in` when the front end should send
    /// the user to sign in.
    static func error(
        _ status: HTTPResponse.Status, _ code: String, _ message: String, signIn: String? = nil,
        setCookies: [String] = [], retryAfter: Int? = nil
    ) -> Response {
        var object: [String: Any] = ["error": code, "message": message]
        if let signIn { object["sign_in"] = signIn }
        if status == .unauthorized { object["signed_in"] = false }
        var response = json(status, object, setCookies: setCookies)
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
    )
        -> Response
    {
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title></head>
            <body><h1>\(escape(title))</h1><p>\(escape(text))</p><p><a href="\(escape(link))">Sign in again</a></p>
            </body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
