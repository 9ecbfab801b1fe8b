import SecureStore
import SecureStoreTesting
import SessionKitTestSupport
import SessionKitTesting
import Testing

@Suite(
    "SecretServiceStore conformance",
    .enabled(if: TestKeyring.shouldRun, "needs an unlocked Secret Service: run under scripts/with-keyring")
)
struct SecretServiceConformanceTests {
    @Test("SecretServiceStore", arguments: SecureStoreConformance.Check.allCases)
    func secretServiceStore(_ check: SecureStoreConformance.Check) async throws {
        let fixtures = try StoredFormatFixtures.storedValues()
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            try await SecureStoreConformance {
                SecretServiceStore(service: $0, configuration: .init(application: "sessionkit-tests"))
            }.storing(fixtures).run(check)
        }
    }

    @Test("EncryptedFileStore with its key in the keyring", arguments: SecureStoreConformance.Check.allCases)
    func envelopeStore(_ check: SecureStoreConformance.Check) async throws {
        let fixtures = try StoredFormatFixtures.storedValues()
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            try await TemporaryFolder.with { folder in
                try await SecureStoreConformance {
                    try StoreSelection.make(service: $0, folder: folder, policy: .requireKeyring).store
                }.storing(fixtures).run(check)
            }
        }
    }

    @Test("an empty service or key is rejected before the keyring is asked")
    func invalidArguments() throws {
        let store = SecretServiceStore(service: "")
        #expect(storeError { _ = try store.keys() }?.code == .invalidArgument)
        #expect(
            storeError { try SecretServiceStore(service: "s").setString("v", forKey: "") }?.code == .invalidArgument)
    }
}
