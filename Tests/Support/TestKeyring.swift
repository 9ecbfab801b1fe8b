import Foundation
import SecureStore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The Secret Service the keyring tests run against: whether there is one, and exclusive use of it while a
/// test locks it.
///
/// `scripts/with-keyring` starts a private D-Bus session with an unlocked GNOME Keyring and puts its
/// password in `SESSIONKIT_TEST_KEYRING_PASSWORD` and its folder in `SESSIONKIT_TEST_KEYRING_HOME`; without
/// that folder the keyring tests are skipped, even where a Secret Service answers (a desktop's own keyring). CI also sets `SESSIONKIT_REQUIRE_KEYRING=1`, which turns
/// a missing keyring into a failure instead of a skip:
///
/// ```swift
/// @Test(.enabled(if: TestKeyring.shouldRun, "needs an unlocked Secret Service: run under scripts/with-keyring"))
/// func roundTrip() async throws {
///     try TestKeyring.require()
///     try await TestKeyring.withAccess { ... }
/// }
/// ```
package enum TestKeyring {
    /// Whether `SESSIONKIT_REQUIRE_KEYRING=1` asks for the keyring tests to fail rather than be skipped.
    package static var isRequired: Bool {
        ProcessInfo.processInfo.environment["SESSIONKIT_REQUIRE_KEYRING"] == "1"
    }

    /// Why the keyring cannot be used, or `nil` when it can; probed once per process.
    package static let unavailableReason: String? = unavailableReason(
        environment: ProcessInfo.processInfo.environment)

    /// Why the keyring cannot be used in `environment`, or `nil` when it can.
    ///
    /// Only the throw-away keyring of `scripts/with-keyring` is ever used: it runs in a private D-Bus session and
    /// names its folder in `SESSIONKIT_TEST_KEYRING_HOME`. Anywhere else (a desktop whose own keyring is unlocked)
    /// nothing is asked of the Secret Service, not even the probe, so the tests never write into a person's
    /// keyring or lock it.
    package static func unavailableReason(environment: [String: String]) -> String? {
        var isFolder: ObjCBool = false
        guard let home = environment["SESSIONKIT_TEST_KEYRING_HOME"],
            FileManager.default.fileExists(atPath: home, isDirectory: &isFolder), isFolder.boolValue
        else {
            return "this is not the throw-away keyring of scripts/with-keyring (SESSIONKIT_TEST_KEYRING_HOME is not "
                + "set), and the tests never use your own keyring"
        }
        do throws(SecureStoreError) {
            try SecretServiceStore(service: "sessionkit.test-probe").checkAvailability()
            return nil
        } catch {
            return error.message
        }
    }

    /// Whether keyring tests should run: the keyring works, or it is required (and the tests will fail).
    package static var shouldRun: Bool { unavailableReason == nil || isRequired }

    /// A failure that explains how to get a keyring.
    package struct Missing: Error, CustomStringConvertible {
        /// Why the keyring cannot be used, and how to run the tests with one.
        package let description: String
    }

    /// Throws ``Missing`` unless the keyring works.
    package static func require() throws {
        guard let reason = unavailableReason else { return }
        throw Missing(
            description: "SESSIONKIT_REQUIRE_KEYRING=1 but the Secret Service cannot be used: \(reason). Run the "
                + "tests under scripts/with-keyring (needs dbus, gnome-keyring)"
        )
    }

    /// Runs `body` while holding the keyring: shared by default, exclusive for a test that locks it, so no
    /// other keyring test runs while the collection is locked. Works across test targets in one process.
    package static func withAccess<R>(exclusive: Bool = false, _ body: () async throws -> R) async throws -> R {
        let path = NSTemporaryDirectory() + "/sessionkit-keyring-tests.\(getuid()).lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Missing(description: "cannot open the test lock file \(path)") }
        defer { close(fd) }
        while flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }
}
