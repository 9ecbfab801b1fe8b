import Foundation
import NIOCore
import PostgresNIO
import SecureStore
import Synchronization

extension PostgresSessionStore {
    /// `update(forKey:_:)`, in one transaction (PostgresNIO's `withTransaction`): take the key's advisory lock
    /// (so an insert of a missing row is serialised too); read the row FOR UPDATE in a fresh snapshot (a
    /// statement of its own, so that its snapshot is taken after the lock); transform; write or delete with
    /// NOTIFY in one statement; commit. Five round trips for a write, four when nothing changes.
    ///
    /// The transform runs on the caller's side of the deadline: the row is read within the call, the
    /// transform applied, and the result written within a second call on the same transaction.
    nonisolated(nonsending) func updateItem(forKey key: String, _ transform: (Data?) throws -> Data?)
        async throws -> Data?
    {
        let digest = try Self.digest(key)
        let exchange = UpdateExchange()
        let work = Task { [self] in
            do {
                try await call("updating an item") { [self] connection in
                    try await updateTransaction(connection, key: key, digest: digest, exchange: exchange)
                }
            } catch {
                exchange.fail(error)
                throw error
            }
        }
        // Read, transform here (the transform need not be Sendable), then let the transaction write.
        let old = try await exchange.storedValue()
        let new: Data?
        do {
            new = try transform(old)
        } catch {
            exchange.abandon()
            _ = await work.result
            throw error
        }
        exchange.write(new)
        switch await work.result {
        case .success: return new
        case .failure(let error): throw error
        }
    }

    /// The transaction of an update: reads the row, hands it over, waits for the value to write, and writes.
    private func updateTransaction(
        _ connection: PostgresConnection, key: String, digest: ByteBuffer, exchange: UpdateExchange
    ) async throws {
        let lock = lockKey(digest)
        let payload = notification(digest, own: true)
        statements.add(2, ordering: .relaxed)  // BEGIN and COMMIT
        try await connection.withTransaction(logger: logger) { connection in
            _ = try await execute(connection, "SELECT pg_advisory_xact_lock(\(lock))")
            let rows = try await execute(
                connection,
                """
                SELECT sealed, key_id FROM sessionkit_items
                WHERE service = \(service) AND key_digest = \(digest) FOR UPDATE
                """)
            let old = try rows.first.map { row throws(SecureStoreError) in try openValue(row, digest: digest) }
            guard case .write(let decision) = await exchange.handOver(old) else { throw UpdateAbandoned() }
            if let new = decision {
                let digestData = Data(digest.readableBytesView)
                let sealedKey = try sealer.seal(Data(key.utf8), purpose: .itemKey, keyDigest: digestData)
                let sealed = try sealer.seal(new, purpose: .itemValue, keyDigest: digestData)
                let keyID = sealer.keys.current.id
                _ = try await execute(
                    connection,
                    """
                    WITH written AS (
                        INSERT INTO sessionkit_items (service, key_digest, key_sealed, sealed, key_id)
                        VALUES (\(service), \(digest), \(sealedKey), \(sealed), \(keyID))
                        ON CONFLICT (service, key_digest) DO UPDATE SET key_sealed = EXCLUDED.key_sealed,
                            sealed = EXCLUDED.sealed, key_id = EXCLUDED.key_id,
                            due_at = NULL, lease_owner = NULL, lease_until = NULL,
                            generation = sessionkit_items.generation + 1, updated_at = now()
                        RETURNING generation
                    )
                    SELECT pg_notify(\(Self.notificationChannel), \(payload)) FROM written
                    """)
            } else if old != nil {
                _ = try await execute(
                    connection,
                    """
                    WITH deleted AS (
                        DELETE FROM sessionkit_items WHERE service = \(service) AND key_digest = \(digest)
                        RETURNING 1
                    )
                    SELECT pg_notify(\(Self.notificationChannel), \(payload)) FROM deleted
                    """)
            }
        }
    }
}

/// Thrown inside an update's transaction when the caller's transform threw: the transaction rolls back.
struct UpdateAbandoned: Error {}
