public import Foundation
import NIOCore
import PostgresNIO
public import SecureStore
import Synchronization

extension PostgresSessionStore {
    /// The entry set aside for `key`, or `nil` when there is none. Entries live in `sessionkit_journal`,
    /// sealed like the items (with their own associated data, so an entry and an item cannot be swapped).
    public func journalEntry(forKey key: String) async throws(SecureStoreError) -> Data? {
        let digest = try Self.digest(key)
        let rows = try await call("reading a journal entry") { [self] connection in
            try await execute(
                connection,
                "SELECT sealed, key_id FROM sessionkit_journal WHERE service = \(service) AND key_digest = \(digest)")
        }
        guard let row = rows.first else { return nil }
        return try openValue(row, digest: digest, purpose: .journalValue)
    }

    /// Sets `data` aside for `key`, replacing any earlier entry; `nil` removes the entry. One statement,
    /// without the item's lock.
    public func setJournalEntry(_ data: Data?, forKey key: String) async throws(SecureStoreError) {
        let digest = try Self.digest(key)
        guard let data else {
            try await call("removing a journal entry") { [self] connection in
                _ = try await executeCommitted(
                    connection, "DELETE FROM sessionkit_journal WHERE service = \(service) AND key_digest = \(digest)")
            }
            return
        }
        let sealed = try sealer.seal(data, purpose: .journalValue, keyDigest: Data(digest.readableBytesView))
        let keyID = sealer.keys.current.id
        try await call("writing a journal entry") { [self] connection in
            _ = try await executeCommitted(
                connection,
                """
                INSERT INTO sessionkit_journal (service, key_digest, sealed, key_id)
                VALUES (\(service), \(digest), \(sealed), \(keyID))
                ON CONFLICT (service, key_digest) DO UPDATE SET sealed = EXCLUDED.sealed, key_id = EXCLUDED.key_id,
                    updated_at = now()
                """)
        }
    }
}
