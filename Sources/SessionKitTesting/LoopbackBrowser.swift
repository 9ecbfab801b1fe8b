public import Foundation
public import SessionKit

/// A browser for loopback sign-ins in tests: it opens a listener's start link, follows the provider's
/// redirects one at a time over real HTTP, and reads the page the listener answers with.
///
/// ```swift
/// let page = try await LoopbackBrowser().signIn(startingAt: listener.startURL)
/// #expect(page.text.contains("Signed in as"))
/// ```
public struct LoopbackBrowser: Sendable {
    /// A page as the browser received it.
    public struct Page: Sendable {
        /// The URL that was requested.
        public let url: URL
        /// The HTTP response.
        public let response: HTTPResponse
        /// The status code.
        public var status: Int { response.status }
        /// The body as text.
        public var text: String { String(decoding: response.body, as: UTF8.self) }
        /// The `Location` header as a URL, if any.
        public var location: URL? { response.header("Location").flatMap { URL(string: $0, relativeTo: url) } }
    }

    private let transport = ProviderClient.defaultTransport

    /// A browser.
    public init() {}

    /// Sends `GET url`, waiting up to `timeout` for the answer (a held page can take a while).
    public func get(_ url: URL, timeout: Duration = .seconds(45)) async throws -> Page {
        Page(url: url, response: try await transport.send(HTTPRequest(method: "GET", url: url), timeout: timeout))
    }

    /// Sends `method url` with no body.
    public func send(_ method: String, _ url: URL) async throws -> Page {
        Page(url: url, response: try await transport.send(HTTPRequest(method: method, url: url), timeout: .seconds(10)))
    }

    /// The authorization URL that `start` redirects to.
    public func authorizationURL(fromStart start: URL) async throws -> URL {
        let page = try await get(start)
        guard page.status == 303, let location = page.location else {
            throw LoopbackBrowserError("the start link answered \(page.status), not a 303 to the provider")
        }
        return location.absoluteURL
    }

    /// The redirect URL the provider sends the browser to from `authorization` (an emulator that signs in
    /// without a form).
    public func redirect(fromAuthorization authorization: URL) async throws -> URL {
        let page = try await get(authorization)
        guard (300..<400).contains(page.status), let location = page.location else {
            throw LoopbackBrowserError(
                "the provider answered \(page.status) without a redirect: \(page.text.prefix(200))")
        }
        return location.absoluteURL
    }

    /// Presses Cancel on the emulator's sign-in form for `authorization` (it posts the authorization request's
    /// parameters with `action=deny` to `/u/login`) and returns the redirect the provider sends back.
    public func cancelSignIn(at authorization: URL) async throws -> URL {
        guard let login = URL(string: "/u/login", relativeTo: authorization)?.absoluteURL,
            let query = URLComponents(url: authorization, resolvingAgainstBaseURL: false)?.percentEncodedQuery
        else { throw LoopbackBrowserError("the authorization URL has no query") }
        let request = HTTPRequest(
            method: "POST", url: login, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Data((query + "&action=deny").utf8))
        let page = Page(url: login, response: try await transport.send(request, timeout: .seconds(10)))
        guard (300..<400).contains(page.status), let location = page.location else {
            throw LoopbackBrowserError("Cancel answered \(page.status) without a redirect: \(page.text.prefix(200))")
        }
        return location.absoluteURL
    }

    /// The whole sign-in: the start link, the provider (its authorization URL changed by `tamper` first, as a
    /// malicious page or proxy could), and the listener's page.
    public func signIn(startingAt start: URL, tamper: @Sendable (URL) -> URL = { $0 }) async throws -> Page {
        let authorization = tamper(try await authorizationURL(fromStart: start))
        return try await get(try await redirect(fromAuthorization: authorization))
    }

    /// `url` with the query parameter `name` set to `value`.
    public static func replacing(_ name: String, with value: String, in url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.queryItems = (components.queryItems ?? []).map {
            $0.name == name ? URLQueryItem(name: name, value: value) : $0
        }
        return components.url ?? url
    }
}

/// A step of ``LoopbackBrowser`` that did not go as a browser expects.
public struct LoopbackBrowserError: Error, CustomStringConvertible {
    /// What happened.
    public let description: String

    init(_ description: String) { self.description = description }
}
