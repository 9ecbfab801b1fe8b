import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

@Suite("sessionctl --store: which backend is in use, shown by status, never a silent downgrade")
struct StoreBackendTests {
    /// Settings that need no provider, with a session bus address where nothing listens.
    private static let noBus = [
        "SESSIONCTL_ISSUER": "https://issuer.example.com/",
        "SESSIONCTL_CLIENT_ID": "client",
        "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/sessionkit-test-bus",
    ]

    @Test("auto without a keyring: status shows the key file fallback and warns")
    func automaticFallback() async throws {
        let cli = try CLI.make(extra: Self.noBus.merging(["SESSIONCTL_STORE": "auto"]) { $1 })
        defer { cli.cleanUp() }
        let json = try await cli.run(["status", "--json"])
        #expect(json.status == 1)
        let report = try SessionKit.JSONValue(parsing: Data(json.stdout.utf8))
        let backend = try #require(report["store"]?["backend"]?.stringValue)
        #expect(backend.hasPrefix("encrypted-file (key file fallback: "))
        #expect(report["store"]?["warning"]?.stringValue?.contains("not in the keyring") == true)

        let human = try await cli.run(["status"])
        #expect(human.stdout.contains("key file fallback"))
        #expect(human.stderr.contains("warning: the session key is in a file beside the data"))
        #expect(human.stderr.contains("--store keyring"))

        let token = try await cli.run(["token"])
        #expect(token.status == 1, "no session, so sign-in is required")
        #expect(!token.stderr.contains("warning"), "token stays quiet about the fallback (kubectl shows its stderr)")
    }

    @Test("auto without a keyring: other commands note the fallback in one line naming --store file, once")
    func fallbackNotedOnce() async throws {
        let cli = try CLI.make(extra: Self.noBus.merging(["SESSIONCTL_STORE": "auto"]) { $1 })
        defer { cli.cleanUp() }
        let first = try await cli.run(["whoami"])
        let notes = first.stderr.split(separator: "\n").filter { $0.contains("no keyring answered") }
        #expect(notes.count == 1, "\(first.stderr)")
        #expect(notes.first?.contains("--store file") == true)
        #expect(notes.first?.contains("--store kernel") == true, "the kernel keyring works here")
        #expect((notes.first?.count ?? 0) <= 240, "one line: \(notes.first ?? "")")
        let again = try await cli.run(["whoami"])
        #expect(!again.stderr.contains("keyring"), "said once: \(again.stderr)")
        #expect(try await cli.run(["status"]).stderr.contains("warning: the session key is in a file"))
    }

    @Test("--store keyring without a keyring fails with 'store unavailable' and what to do")
    func requiredKeyring() async throws {
        let cli = try CLI.make(extra: Self.noBus)
        defer { cli.cleanUp() }
        let result = try await cli.run(["status", "--store", "keyring"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("unlock your keyring"))
        #expect(result.stderr.contains("--store file"))
        #expect(!FileManager.default.fileExists(atPath: cli.sessionsFolder.path + "/sessionctl.key"))
    }

    @Test("--store file: the key file, no warning; a bad value is a configuration error")
    func fileStore() async throws {
        let cli = try CLI.make(extra: Self.noBus)
        defer { cli.cleanUp() }
        let json = try await cli.run(["status", "--json", "--store", "file"])
        let report = try SessionKit.JSONValue(parsing: Data(json.stdout.utf8))
        #expect(report["store"]?["backend"] == .string("encrypted-file (key file)"))
        #expect(!json.stderr.contains("warning"))
        let bad = try await cli.run(["status", "--store", "cloud"])
        #expect(bad.status == 4)
        #expect(bad.stderr.contains("auto, keyring, kernel, file"))
    }

    @Test(
        "--store kernel: the key in the kernel keyring, none on disk; after a restart, what to do, then a new sign-in")
    func kernelStore() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator, extra: ["SESSIONCTL_STORE": "kernel"])
            defer { cli.cleanUp() }
            try await cli.signIn()
            #expect(try await cli.run(["token"]).status == 0)
            let json = try await cli.run(["status", "--json"])
            let report = try SessionKit.JSONValue(parsing: Data(json.stdout.utf8))
            #expect(report["store"]?["backend"] == .string("kernel-keyring+encrypted-file"))
            let files = try FileManager.default.contentsOfDirectory(atPath: cli.sessionsFolder.path)
            #expect(!files.contains { $0.hasSuffix(".key") }, "\(files)")
            // A restart empties the kernel keyring.
            let folder = cli.sessionsFolder.standardizedFileURL.path
            try KernelKeyring.shared.get().remove("sessionkit:sessionctl:\(folder)")
            let after = try await cli.run(["token"])
            #expect(after.status == 3, "\(after.stderr)")
            #expect(after.stderr.contains("remove that file and sign in again"), "\(after.stderr)")
            let store = try #require(files.first { $0.hasSuffix(".store") })
            try FileManager.default.removeItem(atPath: folder + "/" + store)
            try await cli.signIn()
            #expect(try await cli.run(["token"]).status == 0)
            try KernelKeyring.shared.get().remove("sessionkit:sessionctl:\(folder)")
        }
    }

    /// Runs its arguments in a new, empty session keyring, as systemd runs a service (`KeyringMode=private`) and as
    /// `keyctl session -` does: Python's ctypes makes the system call, so nothing needs installing.
    static let privateSessionKeyring = """
        import ctypes, os, platform, sys
        libc = ctypes.CDLL(None, use_errno=True)
        number = {"x86_64": 250, "aarch64": 219}[platform.machine()]  # SYS_keyctl; 1 is KEYCTL_JOIN_SESSION_KEYRING
        if libc.syscall(number, 1, None) < 0:
            sys.exit("cannot join a new session keyring: " + os.strerror(ctypes.get_errno()))
        os.execv(sys.argv[1], sys.argv[1:])
        """

    @Test("--store kernel in a process with a private session keyring (a systemd service): login, then token")
    func kernelStoreInPrivateSession() async throws {
        try await LiveEmulator.with { emulator in
            var cli = try CLI.make(for: emulator, extra: ["SESSIONCTL_STORE": "kernel"])
            cli.launcher = ["/usr/bin/python3", "-c", Self.privateSessionKeyring]
            defer { cli.cleanUp() }
            try await cli.signIn()
            // Each run gets a session keyring of its own: the key is found again in the user's keyring.
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
            #expect(token.stdout.split(separator: ".").count == 3)
            let status = try await cli.run(["status", "--json"])
            let report = try SessionKit.JSONValue(parsing: Data(status.stdout.utf8))
            #expect(report["store"]?["backend"] == .string("kernel-keyring+encrypted-file"))
            let folder = cli.sessionsFolder.standardizedFileURL.path
            try KernelKeyring.shared.get().remove("sessionkit:sessionctl:\(folder)")
        }
    }

    @Test("auto in a private session keyring with no Secret Service (a systemd system service): the key file")
    func automaticInPrivateSession() async throws {
        try await LiveEmulator.with { emulator in
            var cli = try CLI.make(for: emulator, extra: Self.noBus.merging(["SESSIONCTL_STORE": "auto"]) { $1 })
            cli.launcher = ["/usr/bin/python3", "-c", Self.privateSessionKeyring]
            defer { cli.cleanUp() }
            try await cli.signIn()
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
            let status = try await cli.run(["status", "--json"])
            let report = try SessionKit.JSONValue(parsing: Data(status.stdout.utf8))
            let backend = try #require(report["store"]?["backend"]?.stringValue)
            #expect(backend.hasPrefix("encrypted-file (key file fallback: "), "\(backend)")
        }
    }

    @Test(
        "auto with a keyring: sign in, status shows keyring+encrypted-file, no key file on disk",
        .enabled(if: TestKeyring.shouldRun, "needs an unlocked Secret Service: run under scripts/with-keyring")
    )
    func keyring() async throws {
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            try await LiveEmulator.with { emulator in
                let cli = try CLI.make(for: emulator, extra: ["SESSIONCTL_STORE": "auto"])
                defer { cli.cleanUp() }
                let login = try await cli.signIn()
                #expect(!login.stderr.contains("warning"))
                let status = try await cli.run(["status", "--json"])
                #expect(status.status == 0, "\(status.stderr)")
                let report = try SessionKit.JSONValue(parsing: Data(status.stdout.utf8))
                #expect(report["store"]?["backend"] == .string("keyring+encrypted-file"))
                #expect(report["store"]?["warning"] == nil)
                let files = try FileManager.default.contentsOfDirectory(atPath: cli.sessionsFolder.path)
                #expect(files.contains { $0.hasSuffix(".store") })
                #expect(!files.contains { $0.hasSuffix(".key") })
                #expect(try await cli.run(["logout", "--no-revoke"]).status == 0)
            }
        }
    }
}
