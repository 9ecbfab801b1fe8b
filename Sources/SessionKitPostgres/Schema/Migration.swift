import Logging
import PostgresNIO

/// One step of the store's schema, applied once, in order, and recorded in `sessionkit_schema_migrations`; see
/// ``PostgresSessionStore/migrate()`` for what each creates. ``PostgresSessionStore/migrate()`` and
/// ``PostgresSessionStore/Migrations`` both apply them with ``applyPending(on:logger:counting:)``.
struct Migration: Sendable {
    let version: Int
    let summary: String
    let statements: [PostgresQuery]

    /// Every migration this version knows, oldest first. Append new ones; never edit one that has shipped.
    static let all: [Migration] = [
        Migration(
            version: 1,
            summary: "items and journal",
            statements: [
                """
                CREATE TABLE sessionkit_items (
                    service text NOT NULL,
                    key_digest bytea NOT NULL,
                    key_sealed bytea NOT NULL,
                    sealed bytea NOT NULL,
                    key_id text NOT NULL,
                    generation bigint NOT NULL DEFAULT 1,
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (service, key_digest)
                )
                """,
                """
                CREATE TABLE sessionkit_journal (
                    service text NOT NULL,
                    key_digest bytea NOT NULL,
                    sealed bytea NOT NULL,
                    key_id text NOT NULL,
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (service, key_digest)
                )
                """,
                "CREATE INDEX sessionkit_items_updated_at ON sessionkit_items (updated_at)",
            ]
        ),
        // Sealed values are ciphertext: compressing them never pays, and a session record of 2-4 KB was being
        // compressed in vain and moved out of line on every write (a tenth of PostgreSQL's CPU in the renewal
        // storm of Benchmarks/server.sh). Rows up to a page now stay whole in the table.
        Migration(
            version: 2,
            summary: "sealed values stored uncompressed and inline up to a page",
            statements: [
                """
                ALTER TABLE sessionkit_items ALTER COLUMN sealed SET STORAGE EXTERNAL,
                    ALTER COLUMN key_sealed SET STORAGE EXTERNAL, SET (toast_tuple_target = 8160)
                """,
                """
                ALTER TABLE sessionkit_journal ALTER COLUMN sealed SET STORAGE EXTERNAL,
                    SET (toast_tuple_target = 8160)
                """,
            ]
        ),
        // A session's first call on an instance reads it and, when it is due for renewal, leases it in the same
        // statement: the renewal's due time and its lease live in plain columns that the statement can test.
        Migration(
            version: 3,
            summary: "due time and lease beside each item",
            statements: [
                """
                ALTER TABLE sessionkit_items ADD COLUMN due_at timestamptz, ADD COLUMN lease_owner text,
                    ADD COLUMN lease_until timestamptz
                """
            ]
        ),
    ]

    /// The advisory lock that serialises migrations across instances (an arbitrary constant: "SKmigrat").
    static let lock: Int64 = 0x534B_6D69_6772_6174

    /// Applies the migrations that `connection`'s database lacks, in order, in one transaction that holds
    /// ``lock``, so that many instances starting at once apply each exactly once and the others wait, then find
    /// nothing to do. Versions in the table that this version does not know (written by a newer one) are left
    /// alone.
    ///
    /// - Parameter counting: Told of each statement sent (`BEGIN` and `COMMIT` included).
    /// - Returns: The versions applied (empty when the schema was up to date).
    static func applyPending(
        on connection: PostgresConnection, logger: Logger, counting: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> [Int] {
        counting(2)  // BEGIN and COMMIT
        return try await connection.withTransaction(logger: logger) { connection in
            func execute(_ query: PostgresQuery) async throws -> [PostgresRow] {
                counting(1)
                return try await connection.query(query, logger: logger).collect()
            }
            _ = try await execute("SELECT pg_advisory_xact_lock(\(lock))")
            _ = try await execute(
                """
                CREATE TABLE IF NOT EXISTS sessionkit_schema_migrations (
                    version integer PRIMARY KEY,
                    summary text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            var applied = Set<Int>()
            for row in try await execute("SELECT version FROM sessionkit_schema_migrations") {
                applied.insert(try row.decode(Int.self))
            }
            var done: [Int] = []
            for migration in all where !applied.contains(migration.version) {
                for statement in migration.statements {
                    _ = try await execute(statement)
                }
                _ = try await execute(
                    """
                    INSERT INTO sessionkit_schema_migrations (version, summary)
                    VALUES (\(migration.version), \(migration.summary))
                    """)
                done.append(migration.version)
            }
            return done
        }
    }
}
