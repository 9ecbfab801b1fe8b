import NIOCore
import PostgresNIO
public import SecureStore
import Synchronization

extension PostgresSessionStore {
    /// One step of the schema, applied once, in order, and recorded in `sessionkit_schema_migrations`.
    struct Migration: Sendable {
        let version: Int
        let summary: String
        let statements: [PostgresQuery]
    }

    /// Every migration this version knows, oldest first. Append new ones; never edit one that has shipped.
    static let migrations: [Migration] = [
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

    /// The advisory lock that serialises ``migrate()`` across instances (an arbitrary constant: "SKmigrat").
    static let migrationLock: Int64 = 0x534B_6D69_6772_6174

    /// Creates or upgrades the store's tables: run it once at start-up, or from a deployment command, before
    /// using any store on the database.
    ///
    /// Migrations are versioned and recorded in `sessionkit_schema_migrations` (version, summary,
    /// applied_at). Each missing one is applied in order, all in one transaction, under an advisory lock, so
    /// many instances starting at once apply each exactly once and the others wait, then find nothing to do.
    /// Versions in the table that this version of SessionKit does not know (written by a newer one) are left
    /// alone.
    ///
    /// Version 1 creates:
    /// - `sessionkit_items`: `service text`, `key_digest bytea` (SHA-256 of the item's key), `key_sealed bytea`
    ///   and `sealed bytea` (AES-GCM of the key and of the value), `key_id text`, `generation bigint`,
    ///   `updated_at timestamptz`; primary key `(service, key_digest)`.
    /// - `sessionkit_journal`: the same without `key_sealed` and `generation`.
    ///
    /// Version 2 stores the sealed columns uncompressed (`STORAGE EXTERNAL`: ciphertext does not compress) and
    /// keeps rows of up to a page in the table (`toast_tuple_target = 8160`).
    ///
    /// Version 3 adds `due_at timestamptz` (when the item's writer wants it acted on: a session's access token
    /// expiry), `lease_owner text` and `lease_until timestamptz` (``leaseIfDue(forKey:dueBy:lease:)``), in plain
    /// columns: they tell a reader of the table when a session's token expires and which instance renews it,
    /// never a token. Every write sets `due_at` and ends the lease.
    ///
    /// The role needs the right to create tables in the database's search path the first time, and
    /// `SELECT, INSERT, UPDATE, DELETE` on those tables afterwards.
    ///
    /// - Returns: The versions applied by this call (empty when the schema was up to date).
    /// - Throws: ``SecureStoreError/Code/unavailable`` when the database cannot be reached;
    ///   ``SecureStoreError/Code/permissionDenied`` when the role may not create the tables.
    @discardableResult
    public func migrate() async throws(SecureStoreError) -> [Int] {
        // A schema change may take longer than an ordinary call: four statement timeouts.
        try await call("migrating the schema", within: configuration.statementTimeout * 4) { [self] connection in
            statements.add(2, ordering: .relaxed)  // BEGIN and COMMIT
            return try await connection.withTransaction(logger: logger) { connection in
                _ = try await execute(connection, "SELECT pg_advisory_xact_lock(\(Self.migrationLock))")
                _ = try await execute(
                    connection,
                    """
                    CREATE TABLE IF NOT EXISTS sessionkit_schema_migrations (
                        version integer PRIMARY KEY,
                        summary text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """)
                var applied = Set<Int>()
                for row in try await execute(connection, "SELECT version FROM sessionkit_schema_migrations") {
                    applied.insert(try row.decode(Int.self))
                }
                var done: [Int] = []
                for migration in Self.migrations where !applied.contains(migration.version) {
                    for statement in migration.statements {
                        _ = try await execute(connection, statement)
                    }
                    _ = try await execute(
                        connection,
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
}
