import Foundation
import NIOCore
import PostgresNIO

extension PreparedStatements {
    /// ``LeaseIfDue`` for several items in one statement, each with its own threshold and lease: the
    /// `leaseIfDue(forKey:dueBy:lease:)` calls that waited while another was out (``StatementBatcher``).
    ///
    /// It never waits for a row lock: a due row that another statement holds (another instance leasing it at
    /// this moment, or a transaction in the middle of an update) is skipped and reported busy, and its caller
    /// sends it again (see `leaseIfDue`). So one held row never holds up the calls for other sessions that share
    /// the batch, and two instances' batches never deadlock.
    ///
    /// A due row that may be leased here (no lease, an expired one, or this owner's) is returned as its row lock
    /// found it (the version another writer committed after this statement began, not the one before), and
    /// written only when it is leased here. A due row under another owner's live lease is read without a lock
    /// and comes without its sealed value (``SecureStore/LeasedRead/Outcome/heldElsewhere``): in a storm, three
    /// of four instances meet each session leased by the fourth, and wait for its write, which is announced with
    /// the value. Reading those without a lock leaves no lock behind for another instance's batch to skip as
    /// busy. The version such a read reports may be older than the latest (a write committed after this
    /// statement began): the waiter then ends at once on that write's announcement, which reached it already or
    /// will (its manager hears announcements from before its read was sent).
    ///
    /// Returns, for each requested item that has a row, the columns of ``LeaseIfDue``, then the request's
    /// 1-based position in the arrays, then whether it is busy (its other columns are then to be ignored).
    struct LeaseIfDueBatch: PostgresPreparedStatement {
        /// The statement's name on a connection (see ``ReadItem/name``).
        static let name = "sessionkit_lease_if_due_batch"

        static let sql = """
            WITH wanted AS (
                SELECT * FROM unnest($2::bytea[], $3::timestamptz[], $4::text[], $5::timestamptz[])
                    WITH ORDINALITY AS r(digest, threshold, owner, until, position)),
            free AS (
                SELECT i.key_digest, i.sealed, i.key_id, i.generation, i.lease_owner, i.lease_until, w.owner, w.until,
                    w.position
                FROM sessionkit_items i JOIN wanted w ON i.key_digest = w.digest
                WHERE i.service = $1 AND i.due_at <= w.threshold
                    AND (i.lease_owner IS NULL OR i.lease_owner = w.owner OR i.lease_until <= now())
                FOR UPDATE OF i SKIP LOCKED),
            due AS (
                UPDATE sessionkit_items i SET lease_owner = f.owner, lease_until = f.until,
                    generation = i.generation + 1
                FROM free f
                WHERE i.service = $1 AND i.key_digest = f.key_digest AND i.lease_owner IS NULL
                RETURNING i.sealed, i.key_id, i.generation, i.lease_owner, i.lease_until,
                    i.lease_owner = f.owner AND i.lease_until = f.until, f.position)
            SELECT *, false FROM due
            UNION ALL
            SELECT CASE WHEN f.lease_owner <> f.owner AND f.lease_until > now() THEN NULL ELSE f.sealed END,
                f.key_id, f.generation, f.lease_owner, f.lease_until, false, f.position, false
            FROM free f WHERE f.position NOT IN (SELECT position FROM due)
            UNION ALL
            SELECT CASE WHEN h.held THEN NULL ELSE i.sealed END, i.key_id, i.generation, i.lease_owner,
                i.lease_until, false, w.position, d.due AND NOT h.held
            FROM wanted w JOIN sessionkit_items i ON i.service = $1 AND i.key_digest = w.digest,
                LATERAL (SELECT COALESCE(i.due_at <= w.threshold, false) AS due) d,
                LATERAL (SELECT d.due AND COALESCE(i.lease_owner <> w.owner AND i.lease_until > now(), false)
                    AS held) h
            WHERE w.position NOT IN (SELECT position FROM free)
            """
        typealias Row = PostgresRow
        let service: String
        let digests: [ByteBuffer]
        let thresholds: [Date]
        let owners: [String]
        let untils: [Date]

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(service)
            bindings.append(digests)
            bindings.append(thresholds)
            bindings.append(owners)
            bindings.append(untils)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
    }
}
