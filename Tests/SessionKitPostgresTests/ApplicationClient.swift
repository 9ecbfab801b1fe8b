import Foundation
import Logging
import PostgresNIO
import SessionKitPostgresTestSupport
import Synchronization

@testable import SessionKitPostgres

/// The application's own `PostgresClient` on the test database, as an application that shares its client with the
/// store has one: it runs in a task of the test's for as long as `body` does, and stops with it.
enum ApplicationClient {
    /// Runs `body` with a running client of the test database and PostgresNIO's settings for one connection to it.
    /// With `searchPath`, both put unqualified tables in that schema (a test's own, for fresh migrations).
    static func with<T: Sendable>(
        searchPath: String? = nil, maximumConnections: Int = 4,
        _ body: (PostgresClient, PostgresConnection.Configuration) async throws -> T
    ) async throws -> T {
        let configuration = try TestPostgres.configuration { $0.maximumConnections = maximumConnections }
        var settings = try configuration.clientConfiguration()
        var listener = try configuration.connectionConfiguration()
        if let searchPath {
            settings.options.additionalStartupParameters.append(("search_path", searchPath))
            listener.options.additionalStartupParameters.append(("search_path", searchPath))
        }
        let client = PostgresClient(configuration: settings)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client, listener)
        }
    }

    /// A store for `service` over `client`, with the test keys.
    static func store(
        _ client: PostgresClient, _ listener: PostgresConnection.Configuration,
        service: String = "tests.app.\(UUID().uuidString)"
    ) throws -> PostgresSessionStore {
        try PostgresSessionStore(service: service, client: client, listener: listener, keys: TestPostgres.keys())
    }

    /// Runs `query` on a connection of `client` and returns its rows: the application's own queries.
    static func rows(_ client: PostgresClient, _ query: PostgresQuery) async throws -> [PostgresRow] {
        try await client.query(query, logger: quiet).collect()
    }

    static let quiet = Logger(label: "tests.app", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// A latch one task sets and another reads.
final class Latch: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .relaxed) }

    func set() { value.store(true, ordering: .relaxed) }
}
