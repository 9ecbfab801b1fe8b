// Sessions in PostgreSQL, shared by every instance of a server (SessionKitPostgres.md).

// snippet.hide
import Crypto
import Foundation
import SessionKitPostgres

let databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "postgres://app@localhost/sessions"
let sealingKey = SymmetricKey(size: .bits256)
// snippet.show
let store = try PostgresSessionStore(
    service: "com.example.web",
    configuration: .init(url: databaseURL),  // postgres://user:password@host/db?sslmode=verify-full
    keys: .init(current: (id: "2026-11", key: sealingKey))
)
// Run `store` in the application's service group, then, before serving:
try await store.migrate()
