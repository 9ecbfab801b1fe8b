import Crypto
import Foundation
import PostgresNIO
import SecureStore
import SessionKit
import SessionKitPostgresTestSupport
import SessionKitSupport
import SessionKitTestSupport
import Testing

@testable import SessionKitPostgres

/// A row as the first PostgreSQL store (c034272) wrote it, sealed with the fixtures' test key: it reads, through the
/// plain and the versioned reads, and moves to a new key when written back after a key rotation. The tests share
/// the fixture's row, so they run one at a time.
@Suite(
    "Stored formats: an old build's PostgreSQL row", .serialized,
    .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct StoredFormatRowTests {
    static let fixture = "postgres-row-c034272.json"
    static let keyID = "fixture-key"
    static var key: SymmetricKey { SymmetricKey(data: StoredFormatFixtures.keyBytes) }

    /// The row's columns as the fixture holds them (binary columns in hex).
    struct Row: Codable {
        var service: String
        var keyDigest: String
        var keySealed: String
        var sealed: String
        var keyID: String
        enum CodingKeys: String, CodingKey {
            case service, sealed
            case keyDigest = "key_digest"
            case keySealed = "key_sealed"
            case keyID = "key_id"
        }
    }

    @Test("the fixture is regenerated only on request (SESSIONKIT_WRITE_FIXTURES=1)")
    func regenerate() throws {
        guard ProcessInfo.processInfo.environment["SESSIONKIT_WRITE_FIXTURES"] == "1" else { return }
        let service = StoredFormatFixtures.service
        let sealer = RowSealer(keys: try .init(current: (Self.keyID, Self.key)), service: service)
        let digest = RowSealer.digest(ofKey: StoredFormatFixtures.recordKey)
        let row = Row(
            service: service, keyDigest: Hex.string(digest),
            keySealed: Hex.string(
                try sealer.seal(Data(StoredFormatFixtures.recordKey.utf8), purpose: .itemKey, keyDigest: digest)),
            sealed: Hex.string(
                try sealer.seal(
                    try StoredFormatFixtures.data("record-8c13e80.json"), purpose: .itemValue, keyDigest: digest)),
            keyID: Self.keyID)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(row).write(to: URL(fileURLWithPath: StoredFormatFixtures.folder + "/" + Self.fixture))
    }

    /// Inserts the fixture's row as c034272's store did (no generation, due time or lease of its own), its
    /// `key_id` column set to `keyIDColumn`.
    static func insert(_ row: Row, keyIDColumn: String, using store: PostgresSessionStore) async throws {
        let bytes = { (hex: String) throws -> Data in Data(try #require(Hex.bytes(hex.utf8))) }
        _ = try await store.raw(
            """
            INSERT INTO sessionkit_items (service, key_digest, key_sealed, sealed, key_id)
            VALUES (\(row.service), \(try bytes(row.keyDigest)), \(try bytes(row.keySealed)), \(try bytes(row.sealed)),
                \(keyIDColumn))
            ON CONFLICT (service, key_digest) DO UPDATE SET key_sealed = EXCLUDED.key_sealed, sealed = EXCLUDED.sealed,
                key_id = EXCLUDED.key_id
            """)
    }

    @Test("a row marked as format 1 reads; a newer format is newerFormat, kept, and a session's writtenByNewerVersion")
    func rowFormats() async throws {
        _ = try TestPostgres.configuration()
        let row = try JSONDecoder().decode(Row.self, from: try StoredFormatFixtures.data(Self.fixture))
        let store = try await TestPostgres.store(service: row.service, keys: .init(current: (Self.keyID, Self.key)))
        let expected = try StoredFormatFixtures.data("record-8c13e80.json")
        try await Self.insert(row, keyIDColumn: "sessionkit-format-1:\(Self.keyID)", using: store)
        #expect(try await store.data(forKey: StoredFormatFixtures.recordKey) == expected)
        #expect(try await store.keys() == [StoredFormatFixtures.recordKey])

        try await Self.insert(row, keyIDColumn: "sessionkit-format-2:\(Self.keyID)", using: store)
        let error = await storeError { _ = try await store.data(forKey: StoredFormatFixtures.recordKey) }
        #expect(error?.code == .newerFormat)
        #expect(error?.message.contains("format 2") == true)
        let provider = ProviderClient(
            configuration: try ProviderConfiguration(
                issuer: URL(string: "https://fixture.example/")!, clientID: "fixture-client"))
        let manager = SessionManager(provider: provider, store: store)
        for call in ["credentials", "discard"] {
            await #expect(
                performing: {
                    if call == "credentials" {
                        _ = try await manager.credentials()
                    } else {
                        _ = try await manager.discardUnreadableSession()
                    }
                }, throws: { ($0 as? SessionKitError)?.code == .writtenByNewerVersion })
        }
        let left = try await store.raw(
            "SELECT key_id FROM sessionkit_items WHERE service = \(row.service)"
        ).map { try $0.decode(String.self) }
        #expect(left == ["sessionkit-format-2:\(Self.keyID)"], "the row is left as the newer version wrote it")
        _ = try await store.raw("DELETE FROM sessionkit_items WHERE service = \(row.service)")
    }

    @Test("key ids that would read as a format marker are refused")
    func reservedKeyIDs() {
        #expect(throws: SecureStoreError.self) {
            try PostgresSessionStore.Keys(current: ("sessionkit-format-2:a", Self.key))
        }
        #expect(throws: SecureStoreError.self) {
            try PostgresSessionStore.Keys(current: ("a", Self.key), previous: ["sessionkit-format-1:b": Self.key])
        }
        #expect(RowFormat(keyIDColumn: "2026-11") == nil)
        let marked = RowFormat(keyIDColumn: "sessionkit-format-3:k:1")
        #expect(marked?.version == 3 && marked?.keyID == "k:1")
    }

    @Test("the old row reads into its record; after a key rotation it is written back under the new key")
    func oldRow() async throws {
        _ = try TestPostgres.configuration()
        let row = try JSONDecoder().decode(Row.self, from: try StoredFormatFixtures.data(Self.fixture))
        let store = try await TestPostgres.store(service: row.service, keys: .init(current: (Self.keyID, Self.key)))
        try await Self.insert(row, keyIDColumn: row.keyID, using: store)
        let expected = try StoredFormatFixtures.data("record-8c13e80.json")
        #expect(try await store.data(forKey: StoredFormatFixtures.recordKey) == expected)
        #expect(try await store.versionedData(forKey: StoredFormatFixtures.recordKey).data == expected)
        #expect(try await store.keys() == [StoredFormatFixtures.recordKey])
        let record = try SessionRecord.stored(expected)
        #expect(record.credentials?.refreshToken?.unsafeRawValue == "fixture.refresh-token")

        let rotated = try await TestPostgres.store(
            service: row.service,
            keys: .init(current: ("fixture-key-2", TestPostgres.keyB), previous: [Self.keyID: Self.key]))
        try await rotated.update(forKey: StoredFormatFixtures.recordKey) { data in
            try SessionRecord.stored(data).storedData()
        }
        let onlyNew = try await TestPostgres.store(
            service: row.service, keys: .init(current: ("fixture-key-2", TestPostgres.keyB)))
        let rewritten = try #require(try await onlyNew.data(forKey: StoredFormatFixtures.recordKey))
        #expect(try SessionRecord.stored(rewritten) == record, "nothing lost")
        let keyIDs = try await onlyNew.raw(
            "SELECT key_id FROM sessionkit_items WHERE service = \(row.service)"
        ).map { try $0.decode(String.self) }
        #expect(keyIDs == ["fixture-key-2"])
        try await onlyNew.deleteAll()
    }
}
