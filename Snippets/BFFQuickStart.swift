// A back end for front ends on Hummingbird, with its sessions in PostgreSQL (SessionKitBFF's page shows this).

// snippet.hide
import Crypto
import Foundation
import Hummingbird
import SecureStore
import SessionKit
import SessionKitBFF
import SessionKitPostgres
import SessionKitServer

let environment = ProcessInfo.processInfo.environment
let clientSecret = environment["CLIENT_SECRET"] ?? ""
let databaseURL = environment["DATABASE_URL"] ?? "postgres://app@localhost/sessions"
let apiURL = URL(string: "https://api.example.com/")!
let sealingKey = SymmetricKey(size: .bits256)
let cookieKey = SymmetricKey(size: .bits256)
// snippet.show
// A confidential client: the back end holds the client secret, the browser never sees a token.
let provider = ProviderClient(
    configuration: try ProviderConfiguration(
        issuer: URL(string: "https://example.eu.auth0.com/")!, clientID: "YOUR_CLIENT_ID",
        clientSecret: Secret(clientSecret)))
// Sessions in PostgreSQL, sealed with a key every instance shares.
let store = try PostgresSessionStore(
    service: "com.example.web", configuration: .init(url: databaseURL),
    keys: .init(current: (id: "2026-11", key: sealingKey)))
let bff = try BackendForFrontend(
    configuration: try .init(publicURL: URL(string: "https://app.example.com")!, upstream: apiURL),
    sessions: SessionDirectory(provider: provider, store: store),
    cookieSecret: cookieKey)  // 256 random bits, the same on every instance
let router = Router(context: BasicBFFRequestContext.self)
router.add(middleware: bff.sessionMiddleware())
bff.addRoutes(to: router)
// The store first, so it stops last; the back end's services follow changes and sweep ended sessions.
var app = Application(router: router, server: bff.httpServer, services: [store] + bff.services())
app.beforeServerStarts { try await store.migrate() }
try await app.runService()
