import NIOCore
import PostgresNIO
import Synchronization

extension PostgresSessionStore {
    /// Runs a statement that writes, and returns its rows once PostgreSQL has committed it, when `wrote` says from
    /// its rows that it wrote something (always, by default).
    ///
    /// PostgresNIO sends every statement in the extended query protocol, where a statement outside a transaction
    /// block is committed only when the server reads the `Sync` that follows it: after it has sent the statement's
    /// rows and `CommandComplete`, which end the call for PostgresNIO. A server stopped in between (a restart in the
    /// middle of a renewal storm) has answered the statement and rolls it back. So a write is reported done only
    /// once the next statement on its connection is answered, which the server reads after that `Sync`: one more
    /// round trip (``PreparedStatements/ConfirmCommit``). When it fails, the write may or may not have been saved,
    /// and the call fails with a retryable error that says so.
    func executeCommitted<Statement: PostgresPreparedStatement>(
        _ connection: PostgresConnection, _ statement: Statement, wrote: ([PostgresRow]) throws -> Bool = { _ in true }
    ) async throws -> [PostgresRow] where Statement.Row == PostgresRow {
        let rows = try await execute(connection, statement)
        if try wrote(rows) { try await confirmCommitted(connection) }
        return rows
    }

    /// ``executeCommitted(_:_:wrote:)`` for a write that announces itself with its generation: with a `ticket` (see
    /// ``CommitWatch``), the write is reported done once its announcement comes back, and confirmed with a
    /// statement only when it does not (no listener heard it, or not in time). `generation` reads the written
    /// generation from the rows, `nil` when nothing was written.
    func executeCommitted<Statement: PostgresPreparedStatement>(
        _ connection: PostgresConnection, _ statement: Statement, announcedBy ticket: CommitWatch.Ticket?,
        generation: ([PostgresRow]) throws -> UInt64?
    ) async throws -> [PostgresRow] where Statement.Row == PostgresRow {
        try await executeCommitted(connection, statement) { rows in try generation(rows).map { (ticket, $0) } }
    }

    /// ``executeCommitted(_:_:announcedBy:generation:)`` for a statement that may write several announced rows:
    /// `written` names one of them by its writer's ticket and its generation (any one will do: the statement
    /// commits as a whole), `nil` when nothing was written.
    func executeCommitted<Statement: PostgresPreparedStatement>(
        _ connection: PostgresConnection, _ statement: Statement,
        written: ([PostgresRow]) throws -> (ticket: CommitWatch.Ticket?, generation: UInt64)?
    ) async throws -> [PostgresRow] where Statement.Row == PostgresRow {
        let rows = try await execute(connection, statement)
        guard let (ticket, written) = try written(rows) else { return rows }
        if let ticket, await commitWatch.committed(ticket, generation: written) {
            announcedCommits.add(1, ordering: .relaxed)
            return rows
        }
        try await confirmCommitted(connection)
        return rows
    }

    /// ``executeCommitted(_:_:wrote:)`` for a statement that is not prepared.
    func executeCommitted(
        _ connection: PostgresConnection, _ query: PostgresQuery, wrote: ([PostgresRow]) throws -> Bool = { _ in true }
    ) async throws -> [PostgresRow] {
        let rows = try await execute(connection, query)
        if try wrote(rows) { try await confirmCommitted(connection) }
        return rows
    }

    /// Waits until the statement last answered on `connection` is committed: ``PreparedStatements/ConfirmCommit``
    /// is sent only after the server's `ReadyForQuery`, which follows the commit.
    ///
    /// A connection already closed is not asked: PostgresNIO (1.33) never answers a statement written to a closed
    /// channel (its write has no promise; vapor/postgres-nio#487 fixed it and #501 reverted the fix), which would
    /// hold the call to its deadline. A close that comes in the moment between the check and
    /// the write is still bounded by the call's deadline.
    private func confirmCommitted(_ connection: PostgresConnection) async throws {
        guard !connection.isClosed else { throw CommitUnconfirmed(underlying: nil) }
        commitChecks.add(1, ordering: .relaxed)
        do {
            _ = try await execute(connection, PreparedStatements.ConfirmCommit())
        } catch {
            throw CommitUnconfirmed(underlying: error)
        }
    }
}

extension PreparedStatements {
    /// The statement that confirms the commit of the one before it on the same connection
    /// (`executeCommitted`): any statement would; this one costs the server nothing.
    struct ConfirmCommit: PostgresPreparedStatement {
        /// The statement's name on a connection (see ``PreparedStatements/ReadItem/name``).
        static let name = "sessionkit_confirm_commit"

        static let sql = "SELECT 1"
        typealias Row = PostgresRow

        func makeBindings() -> PostgresBindings { PostgresBindings() }
        func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
    }
}

/// A write was answered, but its commit could not be confirmed: the connection failed before the next statement
/// was answered. The write may or may not have been saved.
struct CommitUnconfirmed: Error {
    /// The confirming statement's error; `nil` when the connection was closed before it was sent.
    let underlying: (any Error)?
}
