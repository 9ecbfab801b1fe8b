import SecureStore
import SecureStoreTesting
import SessionKitTestSupport
import SessionKitTesting
import Testing

@Suite("SecureStore conformance")
struct ConformanceTests {
    @Test("MemoryStore", arguments: SecureStoreConformance.Check.allCases)
    func memoryStore(_ check: SecureStoreConformance.Check) async throws {
        let fixtures = try StoredFormatFixtures.storedValues()
        let backing = MemoryStore.Backing()
        try await SecureStoreConformance { MemoryStore(service: $0, backing: backing) }.storing(fixtures).run(check)
    }

    @Test("EncryptedFileStore", arguments: SecureStoreConformance.Check.allCases)
    func encryptedFileStore(_ check: SecureStoreConformance.Check) async throws {
        let fixtures = try StoredFormatFixtures.storedValues()
        try await TemporaryFolder.with { folder in
            try await SecureStoreConformance { try makeFileStore(folder, service: $0) }.storing(fixtures).run(check)
        }
    }

    @Test("the suite's own stored value is SessionKit's current record fixture")
    func currentRecordFixture() throws {
        #expect(SecureStoreConformance.currentRecord == (try StoredFormatFixtures.data("record-current.json")))
    }

    @Test("MemoryStore: empty service is rejected")
    func memoryStoreEmptyService() {
        let store = MemoryStore(service: "")
        #expect(storeError { _ = try store.keys() }?.code == .invalidArgument)
        #expect(storeError { try store.setString("v", forKey: "k") }?.code == .invalidArgument)
    }

    @Test("MemoryStore: separate backings do not share items")
    func memoryStoreSeparateBackings() throws {
        let first = MemoryStore(service: "s")
        let second = MemoryStore(service: "s")
        try first.setString("v", forKey: "k")
        #expect(try second.keys() == [])
        let shared = MemoryStore(service: "s", backing: first.backing)
        #expect(try shared.string(forKey: "k") == "v")
    }
}
