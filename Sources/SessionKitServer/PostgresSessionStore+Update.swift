import Foundation
import NIOCore
import PostgresNIO
import SecureStore

extension PostgresSessionStore {
    /// `update(forKey:_:)`: BEGIN; take the key's advisory lock (so an insert of a missing row is serialised
    /// too); read the row FOR UPDATE in a fresh snapshot (a statement of its own, so that its snapshot is taken
    /// after the lock); transform; write or delete with NOTIFY in one statement; COMMIT. Five round trips for a
    /// write, four when nothing changes.
    func updateItem(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
        let digest = try Self.digest(key)
        let lock = lockKey(digest)
        let payload = notification(digest)
        // The transform's own error, kept apart from database errors so it propagates unchanged.
        var transformError: (any Error)?
        do {
            return try run("updating an item") { connection in
                _ = try execute(connection, "BEGIN")
                do {
                    _ = try execute(connection, "SELECT pg_advisory_xact_lock(\(lock))")
                    let rows = try execute(
                        connection,
                        """
                        SELECT sealed, key_id FROM sessionkit_items
                        WHERE service = \(service) AND key_digest = \(digest) FOR UPDATE
                        """)
                    let old = try rows.first.map { row throws(SecureStoreError) in try openValue(row, digest: digest) }
                    let new: Data?
                    do {
                        new = try transform(old)
                    } catch {
                        transformError = error
                        throw TransformFailure()
                    }
                    if let new {
                        let digestData = Data(digest.readableBytesView)
                        let sealedKey = try sealer.seal(Data(key.utf8), purpose: .itemKey, keyDigest: digestData)
                        let sealed = try sealer.seal(new, purpose: .itemValue, keyDigest: digestData)
                        let keyID = sealer.keys.current.id
                        _ = try execute(
                            connection,
                            """
                            WITH written AS (
                                INSERT INTO sessionkit_items (service, key_digest, key_sealed, sealed, key_id)
                                VALUES (\(service), \(digest), \(sealedKey), \(sealed), \(keyID))
                                ON CONFLICT (service, key_digest) DO UPDATE SET key_sealed = EXCLUDED.key_sealed,
                                    sealed = EXCLUDED.sealed, key_id = EXCLUDED.key_id,
                                    generation = sessionkit_items.generation + 1, updated_at = now()
                                RETURNING 1
                            )
                            SELECT pg_notify(\(Self.notificationChannel), \(payload)) FROM written
                            """)
                    } else if old != nil {
                        _ = try execute(
                            connection,
                            """
                            WITH deleted AS (
                                DELETE FROM sessionkit_items WHERE service = \(service) AND key_digest = \(digest)
                                RETURNING 1
                            )
                            SELECT pg_notify(\(Self.notificationChannel), \(payload)) FROM deleted
                            """)
                    }
                    _ = try execute(connection, "COMMIT")
                    return new
                } catch {
                    rollBack(connection)
                    throw error
                }
            }
        } catch {
            throw transformError ?? error
        }
    }

    /// Rolls back the open transaction; a connection that cannot is closed, so the pool never hands out one
    /// in the middle of a transaction.
    func rollBack(_ connection: PostgresConnection) {
        do {
            _ = try execute(connection, "ROLLBACK")
        } catch {
            let closing: EventLoopFuture<Void> = connection.close()
            _ = try? closing.wait(atMost: .seconds(2))
        }
    }
}

/// Stands for the transform's own error inside the pool, which keeps the connection (the transaction was
/// rolled back); ``PostgresSessionStore/updateItem(forKey:_:)`` rethrows the original.
struct TransformFailure: Error {}
