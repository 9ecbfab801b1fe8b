import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SessionKitTesting
import Synchronization

/// A browser against a back end's router in this process: a cookie jar (name → value), redirects left to the
/// test, and the provider's part of a sign-in over real HTTP to the emulator (``LoopbackBrowser``).
final class RouterBrowser: Sendable {
    /// One answer.
    struct Page: Sendable {
        let status: Int
        let headers: HTTPFields
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        var location: String? { headers[.location] }
        var setCookies: [String] { headers[values: .setCookie] }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    let client: any TestClientProtocol
    private let jar = Mutex<[String: String]>([:])

    init(client: any TestClientProtocol) {
        self.client = client
    }

    /// The jar's cookies, by name.
    var cookies: [String: String] { jar.withLock { $0 } }

    /// Sets (or, with `nil`, deletes) a cookie in the jar.
    func setCookie(_ name: String, _ value: String?) { jar.withLock { $0[name] = value } }

    /// Sends `method path` with `headers`, the jar's cookies (unless `cookies` is false) and `body`, and keeps the
    /// cookies the answer sets.
    func send(
        _ method: HTTPRequest.Method, _ path: String, headers: [(String, String)] = [], body: Data? = nil,
        cookies: Bool = true
    ) async throws -> Page {
        var fields = HTTPFields()
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let jarred = jar.withLock { $0 }
        if cookies, !jarred.isEmpty {
            fields.append(
                HTTPField(name: .cookie, value: jarred.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")))
        }
        let response = try await client.executeRequest(
            uri: path, method: method, headers: fields, body: body.map { ByteBuffer(bytes: $0) })
        let page = Page(
            status: Int(response.status.code), headers: response.headers, body: Data(response.body.readableBytesView))
        if cookies { for line in page.setCookies { store(line) } }
        return page
    }

    /// `GET path`.
    func get(_ path: String, headers: [(String, String)] = []) async throws -> Page {
        try await send(.get, path, headers: headers)
    }

    /// Starts a sign-in (`/auth/login`, with `return_to` if given) and lets the emulator answer the authorization
    /// request; returns the callback's path and query, not yet sent.
    func callback(returnTo: String? = nil, prefix: String = "") async throws -> String {
        var login = URLComponents(string: prefix + "/auth/login")!
        if let returnTo { login.queryItems = [URLQueryItem(name: "return_to", value: returnTo)] }
        let start = try await get(login.string!)
        guard start.status == 303, let location = start.location, let authorization = URL(string: location) else {
            throw Failure("login answered \(start.status): \(start.text)")
        }
        let callback = try await LoopbackBrowser().redirect(fromAuthorization: authorization)
        guard let components = URLComponents(url: callback, resolvingAgainstBaseURL: false) else {
            throw Failure("the provider redirected to \(callback)")
        }
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The whole sign-in: login, the provider, the callback; returns the callback's answer.
    func signIn(returnTo: String? = nil) async throws -> Page {
        try await get(try await callback(returnTo: returnTo))
    }

    /// Keeps a `Set-Cookie` line: a value, or a deletion (`Max-Age=0` or an empty value).
    private func store(_ line: String) {
        let parts = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return }
        let name = String(first[..<equals])
        let value = String(first[first.index(after: equals)...])
        let deleted = value.isEmpty || parts.contains { $0.lowercased() == "max-age=0" }
        setCookie(name, deleted ? nil : value)
    }

    /// A step that did not go as a browser expects.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
