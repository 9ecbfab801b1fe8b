import Foundation
import SecureStore
import SessionKitTestSupport
import SessionKitTesting
import Testing

@Suite(
    "A locked keyring is 'unavailable', never 'signed out'",
    .enabled(if: TestKeyring.shouldRun, "needs an unlocked Secret Service: run under scripts/with-keyring")
)
struct SecretServiceLockTests {
    @Test("lock: reads, writes and store selection throw unavailable quickly; unlock: the session is intact")
    func lockAndUnlock() async throws {
        try TestKeyring.require()
        try await TestKeyring.withAccess(exclusive: true) {
            try await TemporaryFolder.with { folder in
                let service = "locked.\(UUID().uuidString)"
                let direct = SecretServiceStore(service: service)
                try direct.setString("refresh-value-42", forKey: "refresh_token")
                let envelope = try StoreSelection.make(service: service, folder: folder, policy: .requireKeyring)
                try envelope.store.setString("session", forKey: "session")

                try TestKeyring.lockDefaultCollection()
                let started = ContinuousClock.now
                let read = storeError { _ = try direct.string(forKey: "refresh_token") }
                #expect(read?.code == .unavailable)
                #expect(read?.message.contains("unlock your keyring") == true)
                #expect(read.map { "\($0)".contains("refresh-value-42") } == false)
                #expect(storeError { try direct.setString("new", forKey: "refresh_token") }?.code == .unavailable)
                #expect(storeError { try direct.deleteAll() }?.code == .unavailable)
                // Within the kernel keyring's copy of the key (60 s), a new opening is still served: the documented
                // price of skipping D-Bus. Past it, the locked keyring decides.
                #expect(
                    try StoreSelection.make(service: service, folder: folder, policy: .automatic).backend == .keyring)
                try KernelKeyringTests.forgetCachedKey(service: service, folder: folder)
                let reopen = storeError {
                    _ = try StoreSelection.make(service: service, folder: folder, policy: .automatic)
                }
                #expect(reopen?.code == .unavailable, "a locked keyring must not fall back over keyring-encrypted data")
                #expect(ContinuousClock.now - started < .seconds(10), "no call may wait for an unlock prompt")

                try TestKeyring.unlockDefaultCollection()
                #expect(try direct.string(forKey: "refresh_token") == "refresh-value-42")
                let after = try StoreSelection.make(service: service, folder: folder)
                #expect(after.backend == .keyring)
                #expect(try after.store.string(forKey: "session") == "session")
                try direct.deleteAll()
                try SecretServiceStore(service: service + ".file-key").deleteAll()
            }
        }
    }
}
