public import SecureStore
import Synchronization

extension PostgresSessionStore {
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
    /// To apply them as a service of the application's service group instead, with other services waiting until
    /// they are in place, see ``Migrations``.
    ///
    /// - Returns: The versions applied by this call (empty when the schema was up to date).
    /// - Throws: ``SecureStoreError/Code/unavailable`` when the database cannot be reached;
    ///   ``SecureStoreError/Code/permissionDenied`` when the role may not create the tables.
    @discardableResult
    public func migrate() async throws(SecureStoreError) -> [Int] {
        // A schema change may take longer than an ordinary call: four statement timeouts.
        try await call("migrating the schema", within: configuration.statementTimeout * 4) { [self] connection in
            try await Migration.applyPending(on: connection, logger: logger) { [self] count in
                statements.add(count, ordering: .relaxed)
            }
        }
    }
}
