import Foundation

/// One conditional write over a row (`replace(forKey:ifVersion:with:dueAt:)` with a version and a value), as
/// ``StatementBatcher`` holds it until it is sent.
struct UpdateRequest: Sendable {
    /// The row's new columns and announcement.
    let write: PreparedStatements.ItemWrite
    /// The generation the row must still be at.
    let expected: Int64
    /// The writer's ticket for its announcement (see ``CommitWatch``), `nil` when no listener is up.
    let ticket: CommitWatch.Ticket?
}
