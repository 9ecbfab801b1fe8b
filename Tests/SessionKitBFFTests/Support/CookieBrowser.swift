import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// A scripted browser over real HTTP: a cookie jar (host-wide, as browsers keep cookies per host, not per port),
/// redirects followed one at a time by the test, and the emulator's sign-in form filled in and posted.
final class CookieBrowser: Sendable {
    /// One answer.
    struct Page: Sendable {
        let url: URL
        let status: Int
        let headers: HTTPHeaders
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        var location: URL? { headers.first(name: "location").flatMap { URL(string: $0, relativeTo: url)?.absoluteURL } }
        var setCookies: [String] { headers[canonicalForm: "set-cookie"].map(String.init) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    private let client: HTTPClient
    private let jar = JarBox()

    /// - Parameter connectionsPerHost: How many requests to one instance may be out at once (more wait here).
    init(connectionsPerHost: Int = 8) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async { try? await client.shutdown() }

    /// The jar's cookies, by name.
    var cookies: [String: String] { jar.cookies }

    func setCookie(_ name: String, _ value: String?) { jar.set(name, value) }

    /// Sends a request with the jar's cookies (unless `cookies` is false) and stores the cookies it sets.
    func send(
        _ method: HTTPMethod, _ url: URL, headers: [(String, String)] = [], body: Data? = nil, cookies: Bool = true
    ) async throws -> Page {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if cookies, !jar.cookies.isEmpty {
            request.headers.add(
                name: "Cookie", value: jar.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        let page = Page(
            url: url, status: Int(response.status.code), headers: response.headers, body: Data(bytes.readableBytesView))
        if cookies { for line in page.setCookies { jar.store(line) } }
        return page
    }

    func get(_ url: URL, headers: [(String, String)] = []) async throws -> Page {
        try await send(.GET, url, headers: headers)
    }

    /// Follows the sign-in from `/auth/login` on `instance` to the provider's form, signs in as `email`, and
    /// returns the provider's redirect to the callback (not yet followed).
    func callbackURL(
        from instance: URL, returnTo: String? = nil, email: String = "alice@example.com",
        password: String = "alice-demo-password", tamper: @Sendable (URL) -> URL = { $0 }
    ) async throws -> URL {
        var login = URLComponents(url: instance.appendingPathComponent("auth/login"), resolvingAgainstBaseURL: false)!
        if let returnTo { login.queryItems = [URLQueryItem(name: "return_to", value: returnTo)] }
        let start = try await get(login.url!)
        guard start.status == 303, let authorize = start.location.map(tamper) else {
            throw Failure("login answered \(start.status)")
        }
        let form = try await get(authorize)
        // Signed in at the provider already (its own cookie): it redirects straight back, as for a real browser.
        if (300..<400).contains(form.status), let callback = form.location { return callback }
        guard form.status == 200, form.text.contains("<form") else {
            throw Failure("authorize answered \(form.status)")
        }
        var fields = Self.hiddenFields(form.text)
        fields.append(("username", email))
        fields.append(("password", password))
        let action = URL(string: "/u/login", relativeTo: authorize)!.absoluteURL
        let posted = try await send(
            .POST, action, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Data(Self.formEncode(fields).utf8))
        guard (300..<400).contains(posted.status), let callback = posted.location else {
            throw Failure("the sign-in form answered \(posted.status)")
        }
        return callback
    }

    /// The whole sign-in through `instance`: login, the provider's form, the callback (delivered to `instance`
    /// whatever host the provider redirected to, as a TLS-terminating proxy would), and the app's redirect.
    func signIn(
        through instance: URL, returnTo: String? = nil, email: String = "alice@example.com",
        password: String = "alice-demo-password"
    ) async throws -> Page {
        let callback = try await callbackURL(from: instance, returnTo: returnTo, email: email, password: password)
        return try await get(Self.rebase(callback, onto: instance))
    }

    /// Whether this browser's session is refused (`/auth/me` answers 401) on `instance` within `limit`, asked every
    /// 20 ms: how a test sees a session end on every instance.
    func isRefused(on instance: some BFFInstance, within limit: Duration = .seconds(1)) async throws -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if try await get(instance.at("/auth/me")).status == 401 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// `url`'s path and query on `base`'s scheme, host and port.
    static func rebase(_ url: URL, onto base: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.scheme = base.scheme
        components.host = base.host
        components.port = base.port
        return components.url!
    }

    static func hiddenFields(_ html: String) -> [(String, String)] {
        let pattern = #"<input type="hidden" name="([^"]*)" value="([^"]*)">"#
        let regex = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(html.startIndex..., in: html)
        return regex.matches(in: html, range: range).map { match in
            (
                unescape(String(html[Range(match.range(at: 1), in: html)!])),
                unescape(String(html[Range(match.range(at: 2), in: html)!]))
            )
        }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func formEncode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map {
            "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// The cookie jar: name → value, for one host.
final class JarBox: Sendable {
    private let storage = Mutex<[String: String]>([:])

    var cookies: [String: String] { storage.withLock { $0 } }

    func set(_ name: String, _ value: String?) { storage.withLock { $0[name] = value } }

    /// Stores a `Set-Cookie` line: a value, or a deletion (`Max-Age=0` or an empty value).
    func store(_ line: String) {
        let parts = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return }
        let name = String(first[..<equals])
        let value = String(first[first.index(after: equals)...])
        let deleted = value.isEmpty || parts.contains { $0.lowercased() == "max-age=0" }
        set(name, deleted ? nil : value)
    }
}
