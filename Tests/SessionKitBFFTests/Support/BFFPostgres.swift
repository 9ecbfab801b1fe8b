import CoreMetrics
import Crypto
import Foundation
import SecureStore
import SessionKitPostgres
import SessionKitServer
import SessionKitSupport
import SessionKitTestSupport
import Testing

/// The PostgreSQL these tests use, as in SessionKitServerTests: `SESSIONKIT_POSTGRES_URL` (scripts/postgres-start.sh
/// prints one). Without it the tests are skipped with a note, unless `SESSIONKIT_REQUIRE_POSTGRES=1` (CI), which
/// makes them run and fail.
enum BFFPostgres {
    static var url: String? { TestPostgresEnvironment.url }
    static var shouldRun: Bool { TestPostgresEnvironment.shouldRun }
    static let skipNote = Comment(rawValue: TestPostgresEnvironment.skipReason)
    typealias Missing = TestPostgresEnvironment.Missing

    /// One app's shared store settings: a fresh service and sealing key that every instance of a test uses.
    struct Deployment: Sendable {
        let service = "tests.bff.\(UUID().uuidString)"
        let key = SymmetricKey(size: .bits256)
        var keyHex: String { key.withUnsafeBytes { Hex.string($0) } }

        /// A store of this deployment (each instance opens its own), running and migrated; `sealedWith` gives it
        /// another sealing key than the deployment's (an instance configured with the wrong one).
        func store(metrics: (any MetricsFactory)? = nil, sealedWith other: SymmetricKey? = nil) async throws
            -> PostgresSessionStore
        {
            guard let url = BFFPostgres.url else { throw Missing() }
            let store = BFFPostgres.running(
                try PostgresSessionStore(
                    service: service, configuration: .init(url: url),
                    keys: .init(current: (id: "bff", key: other ?? key)), metrics: metrics))
            try await store.migrate()
            return store
        }

        /// A store of this deployment whose database address answers nothing (a closed loopback port), running,
        /// with short connection timeouts.
        func unreachableStore() async throws -> PostgresSessionStore {
            guard let url = BFFPostgres.url else { throw Missing() }
            var configuration = try PostgresSessionStore.Configuration(url: url)
            configuration.port = try await LoopbackPort.unused()
            configuration.connectTimeout = .milliseconds(500)
            configuration.acquireTimeout = .milliseconds(500)
            return BFFPostgres.running(
                try PostgresSessionStore(
                    service: service, configuration: configuration, keys: .init(current: (id: "bff", key: key))))
        }
    }

    /// `store`, its connection pool running for the rest of the test process.
    static func running(_ store: PostgresSessionStore) -> PostgresSessionStore {
        Task { try? await store.run() }
        return store
    }
}
