import Foundation
import SecureStore
import SessionKitTestSupport
import SessionKitTesting
import Testing

@testable import SessionKit

/// The encrypted file store's format 1 (7c715b7, unchanged since), holding the first session record form (7166bd7):
/// a store an old build left behind opens, its session reads, and it is written back in the newest form and read by
/// a fresh store with nothing lost.
@Suite("Stored formats: an old build's encrypted file store")
struct StoredFormatFileStoreTests {
    /// The fixture's folder: the store file and its key file (the fixtures' test key).
    static let fixture = "filestore-v1"

    /// A copy of the fixture's folder in `folder`, its key file private again (git keeps no modes).
    static func copyFixture(to folder: String) throws {
        let source = StoredFormatFixtures.folder + "/" + fixture
        for name in try FileManager.default.contentsOfDirectory(atPath: source) where !name.hasPrefix(".") {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: folder + "/" + name)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o600], ofItemAtPath: folder + "/" + EncryptedFileStore.KeySource.defaultKeyFileName)
    }

    static func store(_ folder: String) throws -> EncryptedFileStore {
        try EncryptedFileStore(service: StoredFormatFixtures.service, configuration: .init(folder: folder))
    }

    @Test("the old store opens, its record reads, and survives a write by this version")
    func oldStoreRoundTrip() async throws {
        try await TemporaryFolder.with { folder in
            try Self.copyFixture(to: folder)
            let store = try Self.store(folder)
            let stored = try #require(try store.data(forKey: StoredFormatFixtures.recordKey))
            #expect(stored == (try StoredFormatFixtures.data("record-7166bd7.json")))
            let record = try SessionRecord.stored(stored)
            #expect(record == StoredFormatTests.expected(name: "record-7166bd7.json"))

            try store.update(forKey: StoredFormatFixtures.recordKey) { data in
                try SessionRecord.stored(data).storedData()
            }
            let reopened = try Self.store(folder)
            let rewritten = try #require(try reopened.data(forKey: StoredFormatFixtures.recordKey))
            #expect(rewritten != stored, "written back in the newest form")
            #expect(try SessionRecord.stored(rewritten) == record)
            #expect(try reopened.keys() == [StoredFormatFixtures.recordKey])
        }
    }

    @Test("the fixture is regenerated only on request (SESSIONKIT_WRITE_FIXTURES=1)")
    func regenerate() async throws {
        guard ProcessInfo.processInfo.environment["SESSIONKIT_WRITE_FIXTURES"] == "1" else { return }
        try await TemporaryFolder.with { folder in
            let keyFile = folder + "/" + EncryptedFileStore.KeySource.defaultKeyFileName
            _ = FileManager.default.createFile(
                atPath: keyFile, contents: StoredFormatFixtures.keyBytes, attributes: [.posixPermissions: 0o600])
            let store = try Self.store(folder)
            try store.setData(
                try StoredFormatFixtures.data("record-7166bd7.json"), forKey: StoredFormatFixtures.recordKey)
            let target = StoredFormatFixtures.folder + "/" + Self.fixture
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder)
            where name.hasSuffix(".store") || name == EncryptedFileStore.KeySource.defaultKeyFileName {
                try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: target + "/" + name)
            }
        }
    }
}
