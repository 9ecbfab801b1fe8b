import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// A store or record that a newer SessionKit wrote (after a downgrade, or two versions sharing one store) is left as
/// it is and reported as such: never read as damage, never discarded, never "signed out".
@Suite("Written by a newer version: kept, and said")
struct NewerVersionTests {
    @Test("a record of a newer version: every call says so, discarding and signing in leave it untouched")
    func newerRecord() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            let store = try LiveSession.makeStore(live.folder)
            let key = live.session.storeKey
            let written = try #require(try store.data(forKey: key))
            // A newer record: its version moved on and its layout changed.
            var newer = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
            newer["version"] = 2
            newer["credentials"] = ["sealed_elsewhere": true]
            let newerData = try JSONSerialization.data(withJSONObject: newer)
            try store.setData(newerData, forKey: key)

            let manager = try live.relaunched()
            await expectNewer { _ = try await manager.credentials() }
            #expect(throws: SessionKitError.self) { _ = try manager.localCredentials() }
            await expectNewer { _ = try await manager.discardUnreadableSession() }
            await expectNewer { try await manager.store(credentials) }
            #expect(try store.data(forKey: key) == newerData, "left exactly as the newer version wrote it")
        }
    }

    @Test("credentials of a newer version inside a current record are a newer record too")
    func newerCredentials() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await live.signIn()
            let store = try LiveSession.makeStore(live.folder)
            let key = live.session.storeKey
            let written = try #require(try store.data(forKey: key))
            var record = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
            var credentials = try #require(record["credentials"] as? [String: Any])
            credentials["version"] = 7
            record["credentials"] = credentials
            try store.setData(try JSONSerialization.data(withJSONObject: record), forKey: key)
            await expectNewer { _ = try await live.relaunched().credentials() }
        }
    }

    @Test("a store file of a newer format: newerFormat from the store, writtenByNewerVersion from the session")
    func newerStoreFile() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await live.signIn()
            let file = try #require(
                try FileManager.default.contentsOfDirectory(at: live.folder, includingPropertiesForKeys: nil).first {
                    $0.pathExtension == "store"
                })
            var bytes = try Data(contentsOf: file)
            bytes[4] = 2  // the format version after the magic
            try bytes.write(to: file)

            let store = try LiveSession.makeStore(live.folder)
            #expect {
                _ = try store.data(forKey: live.session.storeKey)
            } throws: { ($0 as? SecureStoreError)?.code == .newerFormat }
            let manager = try live.relaunched()
            await expectNewer { _ = try await manager.credentials() }
            await expectNewer { _ = try await manager.discardUnreadableSession() }
            #expect(try Data(contentsOf: file) == bytes, "the newer file is left as it is")
        }
    }

    @Test("a renewal a newer version set aside in the journal is kept, and said, instead of removed")
    func newerJournalEntry() async throws {
        try await TemporaryFolder.with { folder in
            let store = try EncryptedFileStore(service: "tests.newer-journal", configuration: .init(folder: folder))
            let configuration = try ProviderConfiguration(
                issuer: URL(string: "https://fixture.example/")!, clientID: "fixture-client")
            let provider = ProviderClient(configuration: configuration)
            let key = "sessionkit.session|https://fixture.example/|fixture-client|default"
            // A session due for renewal, with a lease left behind: the journal is read before renewing.
            try store.setData(try StoredFormatFixtures.data("record-current.json"), forKey: key)
            let entry = Data(#"{"generation":3,"credentials":{"version":7,"sealed_elsewhere":true}}"#.utf8)
            try store.setJournalEntry(entry, forKey: key)
            let manager = SessionManager(provider: provider, store: store)
            await expectNewer { _ = try await manager.credentials() }
            #expect(try store.journalEntry(forKey: key) == entry, "left as the newer version wrote it")
        }
    }

    private func expectNewer(_ body: () async throws -> Void) async {
        await #expect {
            try await body()
        } throws: { error in
            guard let error = error as? SessionKitError else { return false }
            return error.code == .writtenByNewerVersion && error.message.contains("newer") && !error.isRetryable
        }
    }
}
