import PostgresNIO

@testable import SessionKitPostgres

extension PostgresSessionStore {
    /// Runs raw SQL on one of the store's connections and returns the rows: for tests that look under the
    /// store.
    func raw(_ query: PostgresQuery, within limit: Duration? = nil) async throws -> [PostgresRow] {
        try await call("a test query", within: limit) { [logger] connection in
            try await connection.query(query, logger: logger).collect()
        }
    }
}
