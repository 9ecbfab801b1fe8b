import Crypto
import Foundation
import SecureStore
import SessionKit
import SessionKitServer
import Testing

@testable import SessionKitBFF

/// Configuration mistakes are refused when the back end is made, with what to change; nothing falls back.
@Suite("BFF configuration")
struct ConfigurationTests {
    /// Makes a back end and shuts it down (its HTTP client must be shut down before it goes).
    func make(
        _ configuration: BackendForFrontend.Configuration, cookieSecret: SymmetricKey = SymmetricKey(size: .bits256)
    )
        async throws
    {
        let provider = ProviderClient(
            configuration: try ProviderConfiguration(
                issuer: URL(string: "https://id.example.com/")!, clientID: "app"))
        let sessions = SessionDirectory(provider: provider, store: MemoryStore(service: "tests.bff.configuration"))
        try await BackendForFrontend(configuration: configuration, sessions: sessions, cookieSecret: cookieSecret)
            .shutdown()
    }

    func refusal(_ body: () async throws -> Void) async -> BackendForFrontendError? {
        do {
            try await body()
            return nil
        } catch let error as BackendForFrontendError {
            return error
        } catch {
            return nil
        }
    }

    @Test("the session middleware leaves the back end's own routes alone, and only them")
    func ownRoutes() async throws {
        let provider = ProviderClient(
            configuration: try ProviderConfiguration(issuer: URL(string: "https://id.example.com/")!, clientID: "app"))
        var configuration = try BackendForFrontend.Configuration(
            publicURL: URL(string: "http://127.0.0.1:8080")!, prefix: "/bff",
            upstream: URL(string: "http://127.0.0.1:9000/")!)
        configuration.remoteAPIs = [
            try .init(path: "/payments", upstream: URL(string: "http://127.0.0.1:9001/")!, audience: "payments")
        ]
        let bff = try BackendForFrontend(
            configuration: configuration,
            sessions: SessionDirectory(provider: provider, store: MemoryStore(service: "tests.bff.routes")),
            cookieSecret: SymmetricKey(size: .bits256))
        for owned in ["/bff/auth/login", "/bff/auth/me", "/bff/api", "/bff/api/orders/1", "/bff/payments/x"] {
            #expect(bff.ownsRoute(owned), "\(owned)")
        }
        for app in [
            "/", "/orders", "/bff", "/bff/apix", "/bff/paymentsx/1", "/api/orders", "/bff/authx", "/auth/login",
        ] {
            #expect(!bff.ownsRoute(app), "\(app)")
        }
        try await bff.shutdown()
    }

    @Test("plain http off loopback, a bad prefix, a bad upstream or anti-forgery header: refused, saying why")
    func refused() async throws {
        let local = URL(string: "http://127.0.0.1:8080")!
        #expect(
            await refusal {
                _ = try BackendForFrontend.Configuration(publicURL: URL(string: "http://app.example.com")!)
            }?
            .message.contains("https") == true)
        #expect(
            await refusal { _ = try BackendForFrontend.Configuration(publicURL: local, prefix: "bff/") }?.message
                .contains("prefix") == true)
        #expect(
            await refusal {
                try await make(.init(publicURL: local, upstream: URL(string: "ftp://files.example.com/")!))
            }?.message.contains("upstream") == true)
        #expect(
            await refusal { try await make(.init(publicURL: local, antiForgeryHeader: "X CSRF")) }?.message
                .contains("anti-forgery header 'X CSRF'") == true)
        try await make(.init(publicURL: local, antiForgeryHeader: "X-Requested-By"))
        #expect(
            await refusal { try await make(.init(publicURL: local), cookieSecret: SymmetricKey(size: .bits128)) }?
                .message.contains("at least 256 random bits") == true)
        #expect(
            await refusal {
                _ = try BackendForFrontend.Configuration(publicURL: local, postLogoutRedirectPath: "//evil")
            }?
            .message.contains("post-logout") == true)
        #expect(
            await refusal { _ = try BackendForFrontend.Configuration(publicURL: local, idleTimeout: 0) }?.message
                .contains("idleTimeout") == true)
    }

    @Test("remote APIs: one segment of their own, an http(s) upstream, an audience, and no path twice")
    func remoteAPIsRefused() async throws {
        let local = URL(string: "http://127.0.0.1:8080")!
        let api = URL(string: "https://payments.example.com/")!
        for path in ["/api", "/auth", "/a/b", "payments", "/", "/Pay"] {
            #expect(
                await refusal { _ = try BackendForFrontend.RemoteAPI(path: path, upstream: api, audience: "p") }?
                    .message.contains("'\(path)'") == true, "\(path)")
        }
        #expect(
            await refusal {
                _ = try BackendForFrontend.RemoteAPI(
                    path: "/p", upstream: URL(string: "ftp://x.example/")!, audience: "p")
            }?.message.contains("upstream") == true)
        #expect(
            await refusal { _ = try BackendForFrontend.RemoteAPI(path: "/p", upstream: api, audience: "") }?.message
                .contains("audience") == true)
        var twice = try BackendForFrontend.Configuration(publicURL: local)
        twice.remoteAPIs = [
            try .init(path: "/payments", upstream: api, audience: "a"),
            try .init(path: "/payments", upstream: api, audience: "b"),
        ]
        #expect(await refusal { try await make(twice) }?.message.contains("/payments") == true)
    }

    @Test(
        "plain http is loopback only: localhost, ::1 and 127.a.b.c, not a name that starts with 127.",
        arguments: [
            ("http://127.example.com", false), ("http://127.0.0.1.evil.example", false), ("http://127.1", false),
            ("http://0177.0.0.1", false), ("http://127.0.0.256", false), ("http://localhost.example", false),
            ("http://127.0.0.1:8080", true), ("http://127.10.20.30", true), ("http://localhost:9", true),
            ("http://[::1]:8080", true),
        ])
    func loopbackOnly(url: String, accepted: Bool) async {
        let refused = await refusal { _ = try BackendForFrontend.Configuration(publicURL: URL(string: url)!) }
        #expect((refused == nil) == accepted, "\(url)")
        let issuer = try? ProviderConfiguration(issuer: URL(string: url + "/")!, clientID: "app")
        #expect((issuer != nil) == accepted, "the same rule for a plain-http issuer: \(url)")
    }
}
