import Foundation
import NIOCore
import PostgresNIO

/// The statements on the path of every session call, prepared once per connection: PostgreSQL parses and plans
/// each on a connection's first use only (planning was over a quarter of its CPU in the renewal storm of
/// `Benchmarks/server.sh`). Each returns its rows as they are; the store decodes them, so that a column of an
/// unexpected type is reported as the store reports it elsewhere.
///
/// A pooler in transaction mode (PgBouncer before 1.21) does not keep prepared statements: connect to PostgreSQL
/// itself, or to a pooler in session mode.
enum PreparedStatements {
    /// The item's sealed value, key id, generation and lease: `versionedData(forKey:)`.
    struct ReadItem: PostgresPreparedStatement {
        /// The statement's name on a connection, spelled out: PostgresNIO's default is `String(reflecting:)` of
        /// the type, worked out again (through the runtime's reflection) on every execution.
        static let name = "sessionkit_read_item"

        static let sql = """
            SELECT sealed, key_id, generation, lease_owner, lease_until FROM sessionkit_items
            WHERE service = $1 AND key_digest = $2
            """
        typealias Row = PostgresRow
        let service: String
        let digest: ByteBuffer

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(service)
            bindings.append(digest)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
    }

    /// A new item, unless its row exists, at the generation `$9` and announced: `replace(forKey:ifVersion: 0,
    /// with:dueAt:)`.
    struct InsertItem: PostgresPreparedStatement {
        /// The statement's name on a connection (see ``ReadItem/name``).
        static let name = "sessionkit_insert_item_v2"

        static let sql = """
            WITH written AS (
                INSERT INTO sessionkit_items (service, key_digest, key_sealed, sealed, key_id, due_at, generation)
                VALUES ($1, $2, $3, $4, $5, $8::timestamptz, $9)
                ON CONFLICT (service, key_digest) DO NOTHING
                RETURNING generation)
            SELECT generation FROM written, LATERAL (SELECT pg_notify($6, $7)) n
            """
        typealias Row = PostgresRow
        let write: ItemWrite
        let generation: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = try write.bindings()
            bindings.append(generation)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
    }

    /// The item at generation `expected` replaced and announced, or else the row as it is in the statement's
    /// snapshot, in the columns of ``LeaseIfDue`` (the last one: written): `replace(forKey:ifVersion:with:dueAt:)`.
    struct UpdateItem: PostgresPreparedStatement {
        /// The statement's name on a connection (see ``ReadItem/name``).
        static let name = "sessionkit_update_item_v2"

        static let sql = """
            WITH written AS (
                UPDATE sessionkit_items SET key_sealed = $3, sealed = $4, key_id = $5, due_at = $8::timestamptz,
                    lease_owner = NULL, lease_until = NULL, generation = generation + 1, updated_at = now()
                WHERE service = $1 AND key_digest = $2 AND generation = $9
                RETURNING generation)
            SELECT NULL::bytea, NULL::text, generation, NULL::text, NULL::timestamptz, true FROM written,
                LATERAL (SELECT pg_notify($6, $7)) n
            UNION ALL
            SELECT sealed, key_id, generation, lease_owner, lease_until, false FROM sessionkit_items
            WHERE service = $1 AND key_digest = $2 AND NOT EXISTS (SELECT 1 FROM written)
            """
        typealias Row = PostgresRow
        let write: ItemWrite
        let expected: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = try write.bindings()
            bindings.append(expected)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
    }

    /// The item read and, when it is due by `$3` and no lease is on it, leased to `$4` until `$5`, with its
    /// generation moved on and nothing announced: `leaseIfDue(forKey:dueBy:lease:)`. A due row is updated even
    /// when a lease is on it (its lease is left as it is): an update that waited for another writer's row lock
    /// then reads that writer's version, where a plain read would return the one before it. Under another
    /// owner's live lease the sealed value comes back `NULL` (``SecureStore/LeasedRead/Outcome/heldElsewhere``).
    /// The last column is true when the lease asked for was taken.
    struct LeaseIfDue: PostgresPreparedStatement {
        /// The statement's name on a connection (see ``ReadItem/name``).
        static let name = "sessionkit_lease_if_due"

        static let sql = """
            WITH due AS (
                UPDATE sessionkit_items SET
                    lease_owner = CASE WHEN lease_owner IS NULL THEN $4 ELSE lease_owner END,
                    lease_until = CASE WHEN lease_owner IS NULL THEN $5::timestamptz ELSE lease_until END,
                    generation = CASE WHEN lease_owner IS NULL THEN generation + 1 ELSE generation END
                WHERE service = $1 AND key_digest = $2 AND due_at <= $3::timestamptz
                RETURNING sealed, key_id, generation, lease_owner, lease_until)
            SELECT CASE WHEN lease_owner <> $4 AND lease_until > now() THEN NULL ELSE sealed END, key_id,
                generation, lease_owner, lease_until, lease_owner = $4 AND lease_until = $5::timestamptz
            FROM due
            UNION ALL
            SELECT sealed, key_id, generation, lease_owner, lease_until, false FROM sessionkit_items
            WHERE service = $1 AND key_digest = $2 AND NOT EXISTS (SELECT 1 FROM due)
            """
        typealias Row = PostgresRow
        let service: String
        let digest: ByteBuffer
        let threshold: Date
        let owner: String
        let until: Date

        func makeBindings() -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(service)
            bindings.append(digest)
            bindings.append(threshold)
            bindings.append(owner)
            bindings.append(until)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
    }

    /// What a conditional write binds, `$1` to `$8`: the row's place, its sealed key and value, its announcement
    /// (made for the generation the write gives the row: the expected one plus one, or a new row's first), and
    /// when it falls due.
    struct ItemWrite: Sendable {
        let service: String
        let digest: ByteBuffer
        let sealedKey: Data
        let sealed: Data
        let keyID: String
        let announcement: Announcement
        let dueAt: Date?

        func bindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 9)
            bindings.append(service)
            bindings.append(digest)
            try bindings.append(sealedKey)
            try bindings.append(sealed)
            bindings.append(keyID)
            bindings.append(PostgresSessionStore.notificationChannel)
            bindings.append(announcement.payload)
            if let dueAt { bindings.append(dueAt) } else { bindings.appendNull() }
            return bindings
        }
    }
}
