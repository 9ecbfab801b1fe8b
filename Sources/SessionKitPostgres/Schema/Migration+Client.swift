import Logging
import PostgresNIO
import SecureStore

extension Migration {
    /// Applies the pending migrations with a connection of `client`, within `limit`: the wait for a connection,
    /// the wait for another instance's migrations and the statements included. At the deadline the connection in
    /// use, if any, is closed (which rolls the transaction back), and the call fails as unavailable.
    static func applyPending(
        with client: PostgresClient, within limit: Duration, logger: Logger
    ) async throws(SecureStoreError) -> [Int] {
        let action = "applying SessionKit's schema migrations"
        let inUse = HeldConnection(sharedClient: client)
        let work = CallDeadline {
            try await client.withConnection { connection in
                try await inUse.hold(connection) { try await applyPending(on: $0, logger: logger) }
            }
        }
        guard let result = await work.result(within: limit) else {
            work.cancel()
            inUse.close()
            throw SecureStoreError(
                code: .unavailable,
                message: "PostgreSQL did not answer within \(limit) while \(action): no connection could be had, or "
                    + "a statement waited that long; check that the application's client runs and reaches the "
                    + "database, then start again"
            )
        }
        do {
            return try result.get()
        } catch {
            throw PostgresErrors.map(error, while: action)
        }
    }
}
