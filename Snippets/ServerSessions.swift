// Many users' sessions in PostgreSQL, run as services beside the HTTP server (SessionKitServer's pages).

// snippet.hide
import Crypto
import Foundation
// snippet.show
// snippet.services
import Hummingbird
// snippet.hide
import Logging
import SessionKit
// snippet.show
import SessionKitPostgres
import SessionKitServer

// snippet.hide
let databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "postgres://app@localhost/sessions"
let sealingKey = SymmetricKey(size: .bits256)
let oldKey = SymmetricKey(size: .bits256)
let provider = ProviderClient(
    configuration: try ProviderConfiguration(
        issuer: URL(string: "https://example.eu.auth0.com/")!, clientID: "YOUR_CLIENT_ID",
        clientSecret: Secret("YOUR_CLIENT_SECRET")))
let router = Router()
let logger = Logger(label: "com.example.web")
// snippet.show
let store = try PostgresSessionStore(
    service: "com.example.web",
    configuration: .init(url: databaseURL),  // postgres://user:password@host:5432/db?sslmode=verify-full
    keys: .init(current: (id: "2026-11", key: sealingKey), previous: ["2026-05": oldKey])
)
let sessions = SessionDirectory(provider: provider, store: store, capacity: 10_000)
var app = Application(
    router: router,
    services: [
        store,  // the connection pool; stopped last
        ChangeFollower(directory: sessions, feed: store),  // other instances' renewals and logouts
        IdleSweep(store: store, idleFor: .seconds(14 * 86_400), every: .seconds(600), logger: logger),
    ])
app.beforeServerStarts { try await store.migrate() }  // once the pool runs, before any request
try await app.runService()  // SIGTERM: drain, then stop the services
// snippet.end

// snippet.hide
func route(signedIn credentials: Credentials) async throws {
    // snippet.show
    // snippet.route
    let id = try await sessions.create(credentials)  // after sign-in: a new id, never reused
    let token = try await sessions.credentials(for: id, minTTL: 60).accessToken  // memory, or renewed once
    try await sessions.logout(id)  // every instance refuses it within a second
    // snippet.hide
    _ = token
}
