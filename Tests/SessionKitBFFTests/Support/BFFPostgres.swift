import Crypto
import Foundation
import SecureStore
import SessionKitServer
import Testing

/// The PostgreSQL these tests use, as in SessionKitServerTests: `SESSIONKIT_POSTGRES_URL` (scripts/postgres-start.sh
/// prints one). Without it the tests are skipped with a note, unless `SESSIONKIT_REQUIRE_POSTGRES=1` (CI), which
/// makes them run and fail.
enum BFFPostgres {
    static var url: String? {
        ProcessInfo.processInfo.environment["SESSIONKIT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var isRequired: Bool { ProcessInfo.processInfo.environment["SESSIONKIT_REQUIRE_POSTGRES"] == "1" }

    /// Whether the tests should run: a URL is set, or one is required (and they will fail).
    static var shouldRun: Bool { url != nil || isRequired }

    static let skipNote: Comment =
        "needs SESSIONKIT_POSTGRES_URL: run `export SESSIONKIT_POSTGRES_URL=$(scripts/postgres-start.sh)`"

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "SESSIONKIT_REQUIRE_POSTGRES=1 but SESSIONKIT_POSTGRES_URL is not set; start one with scripts/postgres-start.sh"
        }
    }

    /// One app's shared store settings: a fresh service and sealing key that every instance of a test uses.
    struct Deployment: Sendable {
        let service = "tests.bff.\(UUID().uuidString)"
        let key = SymmetricKey(size: .bits256)
        var keyHex: String { key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() } }

        /// A store of this deployment (each instance opens its own), migrated.
        func store() throws -> PostgresSessionStore {
            guard let url = BFFPostgres.url else { throw Missing() }
            let store = try PostgresSessionStore(
                service: service, configuration: .init(url: url), keys: .init(current: (id: "bff", key: key)))
            try store.migrate()
            return store
        }
    }
}
