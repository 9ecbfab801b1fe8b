import HTTPTypes
import Hummingbird
import HummingbirdAnswers
import SessionKit
import SessionKitSupport

/// The answers a back end for front ends gives: JSON for the front end's scripts, redirects and short HTML pages for
/// the browser itself, each with the cookies it sets; built on the servers' one response builder (`Answer`).
enum Answers {
    /// A JSON answer.
    static func json(_ status: HTTPResponse.Status, _ value: some Encodable, setCookies: [String] = []) -> Response {
        Answer.json(value, status: status, headers: cookies(setCookies))
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

    /// The answer when the upstream gave none (the session is kept).
    static func error(_ failure: UpstreamFailure) -> Response {
        error(failure.status, failure.code, failure.message)
    }

    /// ``error(_:)``'s head and body, for the event-loop forwarding path, which writes them to the channel itself.
    static func errorParts(_ failure: UpstreamFailure) -> (HTTPResponse, ByteBuffer) {
        var (head, body) = Answer.jsonParts(
            ErrorAnswer(error: failure.code, message: failure.message), status: failure.status)
        head.headerFields[.contentLength] = String(body.readableBytes)
        return (head, body)
    }

    /// A redirect (`303 See Other`: the browser follows it with GET).
    static func redirect(to location: String, setCookies: [String] = []) -> Response {
        Answer.redirect(to: location, status: .seeOther, headers: cookies(setCookies))
    }

    /// A short HTML page for the browser itself (a failed sign-in), with a link to start again: it loads nothing
    /// and may not be framed.
    static func page(
        _ status: HTTPResponse.Status, title: String, text: String, link: String, setCookies: [String] = []
    ) -> Response {
        let escape = HTMLEscaping.escaped
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title></head>
            <body><h1>\(escape(title))</h1><p>\(escape(text))</p><p><a href="\(escape(link))">Sign in again</a></p>
            </body></html>
            """
        var headers = cookies(setCookies)
        headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Answer.html(html, status: status, headers: headers)
    }

    private static func cookies(_ setCookies: [String]) -> HTTPFields {
        HTTPFields(setCookies.map { HTTPField(name: .setCookie, value: $0) })
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
