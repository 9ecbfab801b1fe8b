import NIOHTTP1
import SessionKit
import SessionKitSupport

/// One answer of the loopback listener: a short self-contained HTML page (no scripts, no third-party
/// resources), or a redirect, with headers that keep it out of caches and referrers.
struct LoopbackPage: Sendable {
    var status: HTTPResponseStatus
    var message: String
    var location: String?
    var allow: String?

    /// The headers every answer carries.
    static let commonHeaders = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Cache-Control", "no-store"),
        ("Pragma", "no-cache"),
        ("Referrer-Policy", "no-referrer"),
        ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Connection", "close"),
    ]

    /// The page's HTML; `message` is escaped.
    var html: String {
        "<!doctype html><html><head><meta charset=utf-8><meta name=viewport content=\"width=device-width\">"
            + "<title>Sign-in</title><style>body{font:16px system-ui,sans-serif;margin:3em auto;max-width:36em;"
            + "padding:0 1em}</style></head><body><p>\(Self.escape(message))</p></body></html>\n"
    }

    /// The response head for a body of `length` bytes.
    func head(version: HTTPVersion, length: Int) -> HTTPResponseHead {
        var headers = HTTPHeaders(Self.commonHeaders)
        headers.add(name: "Content-Length", value: String(length))
        if let location { headers.add(name: "Location", value: location) }
        if let allow { headers.add(name: "Allow", value: allow) }
        return HTTPResponseHead(version: version, status: status, headers: headers)
    }

    /// `text` safe inside HTML.
    static func escape(_ text: String) -> String {
        HTMLEscaping.escaped(text)
    }
}

extension LoopbackPage {
    static let notFound = LoopbackPage(status: .notFound, message: "Not found.")
    static let methodNotAllowed = LoopbackPage(
        status: .methodNotAllowed, message: "Only GET is accepted here.", allow: "GET")
    static let tooLarge = LoopbackPage(status: .init(statusCode: 431), message: "The request is too large.")
    static let startUsed = LoopbackPage(
        status: .gone,
        message: "This sign-in link was already opened once. Start the sign-in again in the application.")
    static let foreign = LoopbackPage(
        status: .badRequest,
        message: "This sign-in link does not belong to the sign-in in progress, so it was ignored. "
            + "The sign-in goes on in the window where it started.")
    static let repeated = LoopbackPage(
        status: .badRequest,
        message: "This sign-in has already received its answer. See the application; you can close this window.")
    static let notWaiting = LoopbackPage(
        status: .badRequest, message: "No sign-in is waiting for this link any more. Start it again in the application."
    )
    static let undecided = LoopbackPage(
        status: .ok,
        message: "The sign-in is taking longer than expected. See the application for the result; "
            + "you can close this window.")

    /// "Sign-in failed: …", a safe summary of `failure` (``LoopbackRedirect/summary(of:)``).
    static func failure(_ failure: SessionKitError) -> LoopbackPage {
        LoopbackPage(
            status: .ok,
            message: "Sign-in failed: \(LoopbackRedirect.summary(of: failure)). See the application for details; "
                + "you can close this window.")
    }

    /// A 303 to `url`.
    static func redirect(to url: String) -> LoopbackPage {
        LoopbackPage(status: .seeOther, message: "Continue to the sign-in page.", location: url)
    }
}
