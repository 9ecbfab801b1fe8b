import SecureStore
import SecureStoreTesting
import SessionKitTesting
import Testing

@Suite("SecureStore conformance")
struct ConformanceTests {
    @Test("MemoryStore", arguments: SecureStoreConformance.Check.allCases)
    func memoryStore(_ check: SecureStoreConformance.Check) async throws {
        let backing = MemoryStore.Backing()
        try await SecureStoreConformance { MemoryStore(service: $0, backing: backing) }.run(check)
    }

    @Test("EncryptedFileStore", arguments: SecureStoreConformance.Check.allCases)
    func encryptedFileStore(_ check: SecureStoreConformance.Check) async throws {
        try await TemporaryFolder.with { folder in
            try await SecureStoreConformance { try makeFileStore(folder, service: $0) }.run(check)
        }
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
