import Logging
import NIOPosix
import PostgresNIO

@testable import SessionKitPostgres

/// An item's locks held by a transaction of the test's own, on a connection of its own, exactly as a store's
/// `update` holds them (the key's advisory lock, then the row FOR UPDATE): another instance in the middle of
/// an update, without a thread waiting anywhere.
struct HeldLock {
    let connection: PostgresConnection

    /// Takes the locks of `key` in `store`'s service; `applicationName` names the connection in
    /// `pg_stat_activity`.
    static func take(in store: PostgresSessionStore, key: String, applicationName: String = "sessionkit-held")
        async throws -> HeldLock
    {
        var configuration = store.connectionConfiguration
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1,
            logger: Logger(label: "held-lock"))
        let digest = try PostgresSessionStore.digest(key)
        let service = store.service
        _ = try await connection.query("BEGIN", logger: Logger(label: "held-lock")).collect()
        _ = try await connection.query(
            "SELECT pg_advisory_xact_lock(\(store.lockKey(digest)))", logger: Logger(label: "held-lock")
        ).collect()
        _ = try await connection.query(
            "SELECT 1 FROM sessionkit_items WHERE service = \(service) AND key_digest = \(digest) FOR UPDATE",
            logger: Logger(label: "held-lock")
        ).collect()
        return HeldLock(connection: connection)
    }

    /// Commits (changing nothing) and closes the connection; throws when the transaction was lost.
    func release() async throws {
        defer { Task { [connection] in try? await connection.close() } }
        _ = try await connection.query("COMMIT", logger: Logger(label: "held-lock")).collect()
    }
}
