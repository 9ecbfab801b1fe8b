import Foundation
import SessionKitTestSupport
import Testing

/// The keyring tests use only the throw-away keyring of scripts/with-keyring: on a desktop whose own keyring is
/// unlocked they are skipped, and nothing (not even the probe) is asked of its Secret Service.
@Suite("The keyring tests never use a person's own keyring")
struct TestKeyringGuardTests {
    @Test("without scripts/with-keyring's folder the keyring is unavailable, before any D-Bus call")
    func outsideWithKeyring() throws {
        let reason = try #require(TestKeyring.unavailableReason(environment: [:]))
        #expect(reason.contains("scripts/with-keyring") && reason.contains("never use your own keyring"))
        let gone = TestKeyring.unavailableReason(environment: [
            "SESSIONKIT_TEST_KEYRING_HOME": "/nonexistent/sessionkit-keyring-\(UUID().uuidString)"
        ])
        #expect(gone?.contains("scripts/with-keyring") == true)
    }

    @Test("under scripts/with-keyring (CI), its keyring is the one the tests use")
    func insideWithKeyring() throws {
        let environment = ProcessInfo.processInfo.environment
        guard environment["SESSIONKIT_TEST_KEYRING_HOME"] != nil || TestKeyring.isRequired else { return }
        #expect(TestKeyring.unavailableReason == nil, "\(TestKeyring.unavailableReason ?? "")")
    }
}
