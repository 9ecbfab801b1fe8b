public import Foundation
import NIOCore
import PostgresNIO
public import SecureStore

extension PostgresSessionStore: VersionedSecureStore {
    /// The item under `key` and its row's generation (`0` when there is no row): one statement.
    public func versionedData(forKey key: String) async throws(SecureStoreError) -> VersionedItem {
        let digest = try Self.digest(key)
        let rows = try await call("reading an item") { [self] connection in
            try await execute(
                connection,
                """
                SELECT sealed, key_id, generation FROM sessionkit_items
                WHERE service = \(service) AND key_digest = \(digest)
                """)
        }
        guard let row = rows.first else { return VersionedItem(data: nil, version: 0) }
        let (_, _, generation) = try decodeRow(row, as: (ByteBuffer, String, Int64).self)
        return VersionedItem(data: try openValue(row, digest: digest), version: UInt64(generation))
    }

    /// Writes `data` (or deletes the item, for `nil`) only if its row is still at generation `version` (`0`: no
    /// row), in one statement with its NOTIFY and no lock of the store's own: a row another writer holds is
    /// waited for, then found changed. Returns the new generation (`0` after a delete), or `nil` when the row
    /// was not at `version`.
    public func replace(forKey key: String, ifVersion version: UInt64, with data: Data?)
        async throws(SecureStoreError) -> UInt64?
    {
        let digest = try Self.digest(key)
        let payload = notification(digest, own: true)
        let expected = Int64(version)
        guard let data else {
            let rows = try await call("deleting an item") { [self] connection in
                try await execute(
                    connection,
                    """
                    WITH deleted AS (
                        DELETE FROM sessionkit_items
                        WHERE service = \(service) AND key_digest = \(digest) AND generation = \(expected)
                        RETURNING 1)
                    SELECT pg_notify(\(Self.notificationChannel), \(payload)) FROM deleted
                    """)
            }
            return rows.isEmpty ? nil : 0
        }
        let digestData = Data(digest.readableBytesView)
        let sealed = try sealer.seal(data, purpose: .itemValue, keyDigest: digestData)
        // The key is sealed again too: both are under the current key, which the row's key id names.
        let sealedKey = try sealer.seal(Data(key.utf8), purpose: .itemKey, keyDigest: digestData)
        let keyID = sealer.keys.current.id
        let rows: [PostgresRow]
        if version == 0 {
            rows = try await call("writing an item") { [self] connection in
                try await execute(
                    connection,
                    """
                    WITH written AS (
                        INSERT INTO sessionkit_items (service, key_digest, key_sealed, sealed, key_id)
                        VALUES (\(service), \(digest), \(sealedKey), \(sealed), \(keyID))
                        ON CONFLICT (service, key_digest) DO NOTHING
                        RETURNING generation)
                    SELECT generation FROM written, LATERAL (SELECT pg_notify(\(Self.notificationChannel), \(payload))) n
                    """)
            }
        } else {
            rows = try await call("updating an item") { [self] connection in
                try await execute(
                    connection,
                    """
                    WITH written AS (
                        UPDATE sessionkit_items SET key_sealed = \(sealedKey), sealed = \(sealed), key_id = \(keyID),
                            generation = generation + 1, updated_at = now()
                        WHERE service = \(service) AND key_digest = \(digest) AND generation = \(expected)
                        RETURNING generation)
                    SELECT generation FROM written, LATERAL (SELECT pg_notify(\(Self.notificationChannel), \(payload))) n
                    """)
            }
        }
        guard let row = rows.first else { return nil }
        let (generation) = try decodeRow(row, as: (Int64).self)
        return UInt64(generation)
    }
}
