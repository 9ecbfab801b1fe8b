import AsyncHTTPClient
import AuthEmulator
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// A live emulator on a free loopback port plus an HTTP client that does not follow redirects.
struct Harness: Sendable {
    let emulator: AuthEmulator
    let http: HTTPClient

    var issuer: String { emulator.issuer.absoluteString }

    /// Runs `body` against a fresh emulator (test controls on, unless the configuration turns them off).
    static func with(
        _ configuration: AuthEmulator.Configuration = .testing(),
        _ body: (Harness) async throws -> Void
    ) async throws {
        RSAKeyPool.enable(size: 8)  // emulators share RSA keys, each with its own kid (see RSAKeyPool)
        try await with(emulator: try await AuthEmulator.start(configuration: configuration), body)
    }

    /// Runs `body` against an emulator the caller started; stops it afterwards.
    static func with(emulator: AuthEmulator, _ body: (Harness) async throws -> Void) async throws {
        let http = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: .init(
                redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10)))
        )
        let harness = Harness(emulator: emulator, http: http)
        do {
            try await body(harness)
        } catch {
            try? await http.shutdown()
            await emulator.stop()
            throw error
        }
        try await http.shutdown()
        await emulator.stop()
    }

    /// Sends a request to a path (or absolute URL) of the emulator.
    func send(
        _ method: HTTPMethod,
        _ path: String,
        body: String? = nil,
        contentType: String = "application/x-www-form-urlencoded",
        headers: [(String, String)] = []
    ) async throws -> HTTPResult {
        let url = path.hasPrefix("http") ? path : issuer + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.replaceOrAdd(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await http.execute(request, timeout: .seconds(10))
        let buffer = try await response.body.collect(upTo: 1 << 20)
        return HTTPResult(
            status: Int(response.status.code), headers: response.headers, body: Data(buffer.readableBytesView))
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> HTTPResult {
        try await send(.GET, path, headers: headers)
    }

    func postForm(_ path: String, _ parameters: [String: String], headers: [(String, String)] = []) async throws
        -> HTTPResult
    {
        try await send(.POST, path, body: Form.encode(parameters), headers: headers)
    }

    func token(_ parameters: [String: String], headers: [(String, String)] = []) async throws -> HTTPResult {
        try await postForm("oauth/token", parameters, headers: headers)
    }

    func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }
}

extension AuthEmulator.Configuration {
    /// The default configuration with test controls on, changed by `change`.
    static func testing(_ change: (inout AuthEmulator.Configuration) -> Void = { _ in }) -> AuthEmulator.Configuration {
        var configuration = AuthEmulator.Configuration(testControlsEnabled: true)
        change(&configuration)
        return configuration
    }
}

/// A response read fully into memory.
struct HTTPResult: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (empty when it is not one).
    var json: [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: body)) ?? [:]
    }

    subscript(_ name: String) -> String? { json[name]?.stringValue }

    var location: String? { headers.first(name: "Location") }

    /// The query parameters of the `Location` header.
    var redirectQuery: [String: String] {
        guard let location, let components = URLComponents(string: location) else { return [:] }
        var result: [String: String] = [:]
        for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }
}

enum Form {
    static func encode(_ parameters: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return parameters.sorted { $0.key < $1.key }.map { name, value in
            "\(name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name)="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }.joined(separator: "&")
    }
}
