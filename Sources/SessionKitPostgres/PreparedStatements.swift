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
    /// The item's sealed value, key id and generation: `versionedData(forKey:)`.
    struct ReadItem: PostgresPreparedStatement {
        static let sql = """
            SELECT sealed, key_id, generation FROM sessionkit_items WHERE service = $1 AND key_digest = $2
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

    /// A new item, unless its row exists, announced with its generation: `replace(forKey:ifVersion: 0, with:)`.
    struct InsertItem: PostgresPreparedStatement {
        static let sql = """
            WITH written AS (
                INSERT INTO sessionkit_items (service, key_digest, key_sealed, sealed, key_id)
                VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (service, key_digest) DO NOTHING
                RETURNING generation)
            SELECT generation FROM written, LATERAL (SELECT pg_notify($6, $7 || generation::text || $8)) n
            """
        typealias Row = PostgresRow
        let write: ItemWrite

        func makeBindings() throws -> PostgresBindings { try write.bindings() }
        func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
    }

    /// The item at generation `expected` replaced and announced, or else the row as it is in the statement's
    /// snapshot: `replace(forKey:ifVersion:with:)`.
    struct UpdateItem: PostgresPreparedStatement {
        static let sql = """
            WITH written AS (
                UPDATE sessionkit_items SET key_sealed = $3, sealed = $4, key_id = $5,
                    generation = generation + 1, updated_at = now()
                WHERE service = $1 AND key_digest = $2 AND generation = $9
                RETURNING generation)
            SELECT true, generation, NULL::bytea, NULL::text FROM written,
                LATERAL (SELECT pg_notify($6, $7 || generation::text || $8)) n
            UNION ALL
            SELECT false, generation, sealed, key_id FROM sessionkit_items
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

    /// What a conditional write binds, `$1` to `$8`: the row's place, its sealed key and value, and its
    /// announcement around the new generation.
    struct ItemWrite: Sendable {
        let service: String
        let digest: ByteBuffer
        let sealedKey: Data
        let sealed: Data
        let keyID: String
        let announcement: Announcement

        func bindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 9)
            bindings.append(service)
            bindings.append(digest)
            try bindings.append(sealedKey)
            try bindings.append(sealed)
            bindings.append(keyID)
            bindings.append(PostgresSessionStore.notificationChannel)
            bindings.append(announcement.head)
            bindings.append(announcement.tail)
            return bindings
        }
    }
}
