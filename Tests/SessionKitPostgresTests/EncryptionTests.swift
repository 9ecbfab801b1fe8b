import Crypto
import Foundation
import NIOCore
import PostgresNIO
import SecureStore
import SessionKitPostgresTestSupport
import SessionKitSupport
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

@Suite("PostgresSessionStore encryption at rest", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct EncryptionTests {
    @Test("A raw read of the rows shows neither the value nor the key")
    func noPlaintextInRows() async throws {
        let store = try await TestPostgres.store()
        let secret = "refresh-token-\(UUID().uuidString)"
        let key = "session-\(UUID().uuidString)"
        try await store.setString(secret, forKey: key)
        try await store.setJournalEntry(Data(secret.utf8), forKey: key)
        let rows = try await store.raw(
            """
            SELECT key_digest, key_sealed, sealed, key_id, generation FROM sessionkit_items
            WHERE service = \(store.service)
            """
        )
        #expect(rows.count == 1)
        let (digest, sealedKey, sealed, keyID, generation) = try rows[0].decode(
            (ByteBuffer, ByteBuffer, ByteBuffer, String, Int64).self
        )
        #expect(keyID == "a")
        #expect(generation == 1)
        let journal = try await store.raw("SELECT sealed FROM sessionkit_journal WHERE service = \(store.service)")
        let journalSealed = try journal[0].decode(ByteBuffer.self)
        for column in [digest, sealedKey, sealed, journalSealed] {
            let bytes = Data(column.readableBytesView)
            for plain in [secret, key] {
                #expect(bytes.range(of: Data(plain.utf8)) == nil)
            }
        }
        // The whole row as PostgreSQL prints it (bytea in hex) has neither either.
        let text = try await store.raw(
            "SELECT row_to_json(i)::text FROM sessionkit_items i WHERE service = \(store.service)"
        )
        let printed = try text[0].decode(String.self)
        #expect(!printed.contains(secret) && !printed.contains(key))
        #expect(!printed.contains(Hex.string(Data(secret.utf8))))
    }

    @Test("Values swapped between rows fail as corrupted, naming what to do; other rows still read")
    func swappedRowsAreCorrupted() async throws {
        let store = try await TestPostgres.store()
        try await store.setString("alice-token", forKey: "alice")
        try await store.setString("bob-token", forKey: "bob")
        try await store.setString("carol-token", forKey: "carol")
        let alice = PostgresSessionStore.digestData("alice")
        let bob = PostgresSessionStore.digestData("bob")
        _ = try await store.raw(
            """
            UPDATE sessionkit_items AS i SET sealed = o.sealed
            FROM sessionkit_items AS o
            WHERE i.service = \(store.service) AND o.service = i.service
              AND ((i.key_digest = \(ByteBuffer(bytes: alice)) AND o.key_digest = \(ByteBuffer(bytes: bob)))
                OR (i.key_digest = \(ByteBuffer(bytes: bob)) AND o.key_digest = \(ByteBuffer(bytes: alice))))
            """
        )
        for key in ["alice", "bob"] {
            let error = await storeError { _ = try await store.string(forKey: key) }
            #expect(error?.code == .corrupted)
            #expect(error?.message.contains("failed authentication with key id 'a'") == true)
            #expect(error?.message.contains("-token") == false)
        }
        #expect(try await store.string(forKey: "carol") == "carol-token")
    }

    @Test("A row moved to another service fails as corrupted")
    func rowMovedToAnotherServiceIsCorrupted() async throws {
        let first = try await TestPostgres.store()
        let second = try await TestPostgres.store()
        try await first.setString("value", forKey: "k")
        _ = try await first.raw(
            "UPDATE sessionkit_items SET service = \(second.service) WHERE service = \(first.service)"
        )
        #expect(await storeError { _ = try await second.string(forKey: "k") }?.code == .corrupted)
        #expect(await storeError { _ = try await second.keys() }?.code == .corrupted)
    }

    @Test("Key rotation: old rows read with a previous key, writes use the current one, unknown key ids fail")
    func keyRotation() async throws {
        let service = "tests.rotation.\(UUID().uuidString)"
        let withA = try await TestPostgres.store(service: service)
        try await withA.setString("one", forKey: "first")
        try await withA.setString("two", forKey: "second")

        let rotated = try await TestPostgres.store(
            service: service,
            keys: .init(current: (id: "b", key: TestPostgres.keyB), previous: ["a": TestPostgres.keyA])
        )
        #expect(try await rotated.string(forKey: "first") == "one")
        #expect(try await rotated.keys() == ["first", "second"])
        try await rotated.update(forKey: "first") { old in old.map { $0 + Data("!".utf8) } }
        let keyIDs = try await rotated.raw(
            "SELECT key_id FROM sessionkit_items WHERE service = \(service) ORDER BY key_id"
        ).map { try $0.decode(String.self) }
        #expect(keyIDs == ["a", "b"])
        #expect(try await withA.string(forKey: "second") == "two")

        let onlyB = try await TestPostgres.store(
            service: service,
            keys: .init(current: (id: "b", key: TestPostgres.keyB))
        )
        #expect(try await onlyB.string(forKey: "first") == "one!")
        let error = await storeError { _ = try await onlyB.string(forKey: "second") }
        #expect(error?.code == .corrupted)
        #expect(error?.message.contains("key id 'a'") == true)
        #expect(error?.message.contains("Keys.previous") == true)
        // The item is left alone: with the old key back, it reads again.
        #expect(try await rotated.string(forKey: "second") == "two")
    }

    @Test("Keys are checked and never printed")
    func keysValidation() async throws {
        #expect(
            await storeError { _ = try PostgresSessionStore.Keys(current: (id: "", key: TestPostgres.keyA)) }?.code
                == .invalidArgument)
        #expect(
            await storeError {
                _ = try PostgresSessionStore.Keys(current: (id: "x", key: SymmetricKey(size: .bits128)))
            }?.code == .invalidArgument)
        #expect(
            await storeError {
                _ = try PostgresSessionStore.Keys(
                    current: (id: "x", key: TestPostgres.keyA), previous: ["x": TestPostgres.keyB])
            }?.code == .invalidArgument)
        let keys = try PostgresSessionStore.Keys(
            current: (id: "b", key: TestPostgres.keyB), previous: ["a": TestPostgres.keyA])
        #expect("\(keys)" == "Keys(current: b, previous: [\"a\"])")
    }
}
