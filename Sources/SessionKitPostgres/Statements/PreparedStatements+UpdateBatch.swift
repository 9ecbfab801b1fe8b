import Foundation
import NIOCore
import PostgresNIO

extension PreparedStatements {
    /// ``UpdateItem`` for several items in one statement, each with its own value, generation and announcement:
    /// the conditional writes (`replace(forKey:ifVersion:with:dueAt:)` over a row) that waited while another was
    /// out (``StatementBatcher``), such as the commits of a renewal storm.
    ///
    /// Like ``LeaseIfDueBatch`` it never waits for a row lock: a row at the expected generation that another
    /// statement holds is skipped and reported busy, and its caller sends ``UpdateItem`` alone, which waits for
    /// the row. So one held row never holds up the writes of other sessions, and two batches never deadlock. Every
    /// row written is announced on the channel `$9` with its own payload, made for the generation the write gives
    /// it, by the same transaction.
    ///
    /// Returns, for each requested item that has a row, the columns of ``UpdateItem`` (the sealed value and lease
    /// only for a row not written), then the request's 1-based position in the arrays, then whether it is busy.
    struct UpdateItemBatch: PostgresPreparedStatement {
        /// The statement's name on a connection (see ``ReadItem/name``).
        static let name = "sessionkit_update_item_batch_v2"

        static let sql = """
            WITH wanted AS (
                SELECT * FROM unnest($2::bytea[], $3::bytea[], $4::bytea[], $5::text[], $6::timestamptz[],
                    $10::bool[], $7::bigint[], $8::text[])
                    WITH ORDINALITY AS w(digest, key_sealed, sealed, key_id, due, has_due, expected, payload,
                        position)),
            free AS (
                SELECT i.key_digest FROM sessionkit_items i JOIN wanted w ON i.key_digest = w.digest
                WHERE i.service = $1 AND i.generation = w.expected
                FOR UPDATE OF i SKIP LOCKED),
            written AS (
                UPDATE sessionkit_items i SET key_sealed = w.key_sealed, sealed = w.sealed, key_id = w.key_id,
                    due_at = CASE WHEN w.has_due THEN w.due END, lease_owner = NULL, lease_until = NULL,
                    generation = i.generation + 1, updated_at = now()
                FROM wanted w
                WHERE i.service = $1 AND i.key_digest = w.digest AND i.generation = w.expected
                    AND i.key_digest IN (SELECT key_digest FROM free)
                RETURNING i.generation, w.position, w.payload)
            SELECT NULL::bytea, NULL::text, generation, NULL::text, NULL::timestamptz, true, position, false
            FROM written, LATERAL (SELECT pg_notify($9, payload)) n
            UNION ALL
            SELECT i.sealed, i.key_id, i.generation, i.lease_owner, i.lease_until, false, w.position,
                i.generation = w.expected
            FROM wanted w JOIN sessionkit_items i ON i.service = $1 AND i.key_digest = w.digest
            WHERE w.position NOT IN (SELECT position FROM written)
            """
        typealias Row = PostgresRow
        let service: String
        let writes: [ItemWrite]
        let expected: [Int64]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 10)
            bindings.append(service)
            bindings.append(writes.map(\.digest))
            bindings.append(writes.map { ByteBuffer(bytes: $0.sealedKey) })
            bindings.append(writes.map { ByteBuffer(bytes: $0.sealed) })
            bindings.append(writes.map(\.keyID))
            // A write without a due date stores NULL, as ``UpdateItem`` does (`$10` says which have one).
            bindings.append(writes.map { $0.dueAt ?? Date(timeIntervalSince1970: 0) })
            bindings.append(expected)
            bindings.append(writes.map(\.announcement.payload))
            bindings.append(PostgresSessionStore.notificationChannel)
            bindings.append(writes.map { $0.dueAt != nil })
            return bindings
        }

        func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
    }
}
