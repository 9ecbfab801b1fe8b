import AuthEmulator
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import SecureStore
import SessionKit
import SessionKitServer
import SessionKitTesting

@testable import SessionKitBFF

/// A back end for front ends over the in-memory store, its routes answered by its router in this process
/// (HummingbirdTesting's `.router`): no socket to the back end, no database, no process. The provider is the
/// emulator on loopback when a test signs in; the upstream, when one is needed, an echo server on loopback.
struct RouterBFF: Sendable {
    /// The back end under test.
    let bff: BackendForFrontend
    /// Its sessions' store.
    let store: MemoryStore
    /// The cookie secret it seals with.
    let cookieSecret: SymmetricKey
    private let client: any TestClientProtocol

    /// A browser with an empty cookie jar; each call gives another one.
    func browser() -> RouterBrowser { RouterBrowser(client: client) }

    /// The number of items in the store.
    func storedItems() throws -> Int { try store.keys().count }

    /// The public URL of the tests: plain http on loopback, allowed for development.
    static let localURL = URL(string: "http://127.0.0.1:8080")!

    /// Runs `body` with a back end signing in at `emulator` (as its confidential client by default) or, without
    /// one, at a provider nobody can reach (for rules checked before the provider is asked), forwarding
    /// `/api/...` to `upstream`.
    static func test(
        emulator: AuthEmulator? = nil, publicURL: URL = localURL, upstream: URL? = nil,
        clientID: String = AuthEmulator.Client.confidentialID,
        clientSecret: String = AuthEmulator.Client.confidentialSecret,
        configure: (inout BackendForFrontend.Configuration) -> Void = { _ in },
        _ body: @Sendable (RouterBFF) async throws -> Void
    ) async throws {
        let provider: ProviderConfiguration
        if let emulator {
            provider = try emulator.providerConfiguration(clientID: clientID, clientSecret: clientSecret)
        } else {
            // `.invalid` never resolves (RFC 6761): a test that reached the provider would fail, not hang.
            provider = try ProviderConfiguration(
                issuer: URL(string: "https://id.invalid/")!, clientID: clientID, clientSecret: Secret(clientSecret),
                requestTimeout: .seconds(2))
        }
        let store = MemoryStore(service: "tests.bff.router.\(UUID().uuidString)")
        let sessions = SessionDirectory(provider: ProviderClient(configuration: provider), store: store)
        var configuration = try BackendForFrontend.Configuration(
            publicURL: publicURL, upstream: upstream ?? URL(string: "http://127.0.0.1:9/")!)
        configure(&configuration)
        let secret = SymmetricKey(size: .bits256)
        let bff = try BackendForFrontend(configuration: configuration, sessions: sessions, cookieSecret: secret)
        let router = Router(context: BasicBFFRequestContext.self)
        router.add(middleware: bff.sessionMiddleware())
        bff.addRoutes(to: router)
        let app = Application(router: router, services: bff.services())
        try await app.test(.router) { client in
            try await body(RouterBFF(bff: bff, store: store, cookieSecret: secret, client: client))
        }
    }

    /// An emulator that signs Alice in at `/authorize` without its form, as a browser with her provider session
    /// would be, changed by `configure`.
    static func emulatorConfiguration(
        _ configure: (inout AuthEmulator.Configuration) -> Void = { _ in }
    ) -> AuthEmulator.Configuration {
        LiveEmulator.configuration {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            configure(&$0)
        }
    }

    /// The value of a session cookie for `id`, sealed as this back end seals it (or under `secret`).
    func sealedSession(_ id: SessionID, secret: SymmetricKey? = nil, name: String = "sessionkit") -> String {
        let now = Date()
        let cookie = SessionCookie(id: id, createdAt: now, seenAt: now, lifetime: 3600, idleTimeout: 3600)
        return CookieSealer(secret: secret ?? cookieSecret).seal(cookie.plaintext, name: name)
    }
}
