import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// The real `sessionctl` where the kernel keyring's system calls are denied, as Docker's default seccomp profile
/// denies them: every run goes through `scripts/deny-keyctl.py`, which makes `keyctl`, `add_key` and `request_key`
/// fail with `EPERM` in the program it starts.
@Suite("sessionctl with the kernel keyring's system calls denied (a container's default seccomp profile)")
struct DeniedKeyringTests {
    static let launcher = ["/usr/bin/python3", FileManager.default.currentDirectoryPath + "/scripts/deny-keyctl.py"]

    /// Asks for the user keyring's id (`keyctl(KEYCTL_GET_KEYRING_ID, @u)`) and for the process id, and prints the
    /// error of each (0 when it worked).
    static let probe = """
        import ctypes, platform
        libc = ctypes.CDLL(None, use_errno=True)
        keyctl, getpid = {"x86_64": (250, 39), "aarch64": (219, 172)}[platform.machine()]
        for call in (lambda: libc.syscall(keyctl, 0, -4, 0), lambda: libc.syscall(getpid)):
            print(ctypes.get_errno() if call() < 0 else 0)
        """

    /// A CLI that runs `sessionctl` under the launcher.
    static func cli(for emulator: AuthEmulator, extra: [String: String]) throws -> CLI {
        var cli = try CLI.make(for: emulator, extra: extra)
        cli.launcher = launcher
        return cli
    }

    @Test("the launcher denies the keyring's calls with EPERM and lets the others through")
    func launcherDenies() async throws {
        let environment = ProcessInfo.processInfo.environment
        let plain = try SpawnedProcess(
            path: "/usr/bin/python3", arguments: ["-c", Self.probe], environment: environment)
        try plain.standardInput.close()
        #expect(try await CLI.Result.of(plain).stdout == "0\n0\n", "keyctl works without the launcher")
        let denied = try SpawnedProcess(
            path: Self.launcher[0], arguments: [Self.launcher[1], "/usr/bin/python3", "-c", Self.probe],
            environment: environment)
        try denied.standardInput.close()
        let result = try await CLI.Result.of(denied)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(EPERM)\n0\n")
    }

    @Test("--store kernel: exit 3 and one paragraph that names the seccomp profile and what to do; nothing on disk")
    func kernelStoreDenied() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try Self.cli(for: emulator, extra: ["SESSIONCTL_STORE": "kernel"])
            defer { cli.cleanUp() }
            let login = try await cli.run(
                ["login", "--password-stdin", "--username", AuthEmulator.User.aliceEmail],
                input: AuthEmulator.User.alicePassword + "\n")
            #expect(login.status == 3, "\(login.stderr)")
            #expect(login.stdout.isEmpty)
            let lines = login.stderr.split(separator: "\n")
            #expect(lines.count == 1, "one paragraph: \(login.stderr)")
            for words in ["system calls are denied", "seccomp profile", "--store file", "allow keyctl"] {
                #expect(login.stderr.contains(words), "'\(words)' in: \(login.stderr)")
            }
            #expect(!login.stderr.contains(AuthEmulator.User.alicePassword))
            #expect(!login.stderr.contains("try again"), "trying again cannot help: \(login.stderr)")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: cli.sessionsFolder.path)) ?? []
            #expect(files.isEmpty, "no key file, no session: \(files)")
            for command in [["token"], ["status", "--json"]] {
                let result = try await cli.run(command)
                #expect(result.status == 3, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("seccomp profile"), "\(command): \(result.stderr)")
            }
        }
    }

    @Test("--store auto without a Secret Service: the key file, noted once per folder, and the session works")
    func automaticWithoutSecretService() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try Self.cli(
                for: emulator,
                extra: [
                    "SESSIONCTL_STORE": "auto",
                    "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/sessionkit-test-bus",
                ])
            defer { cli.cleanUp() }
            let login = try await cli.signIn()
            let notes = login.stderr.split(separator: "\n").filter { $0.contains("no keyring answered") }
            #expect(notes.count == 1, "\(login.stderr)")
            #expect(notes.first?.contains("--store file") == true)
            #expect(notes.first?.contains("--store kernel") == false, "denied here, so not offered: \(login.stderr)")
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "\(token.stderr)")
            #expect(token.stdout.split(separator: ".").count == 3)
            let whoami = try await cli.run(["whoami"])
            #expect(whoami.status == 0, "\(whoami.stderr)")
            #expect(!whoami.stderr.contains("keyring"), "said once: \(whoami.stderr)")
            let status = try await cli.run(["status", "--json"])
            let report = try SessionKit.JSONValue(parsing: Data(status.stdout.utf8))
            let backend = try #require(report["store"]?["backend"]?.stringValue)
            #expect(backend.hasPrefix("encrypted-file (key file fallback: "), "\(backend)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: cli.sessionsFolder.path).contains("sessionctl.key"))
        }
    }

    @Test(
        "--store auto with a Secret Service: the key there and not cached in the kernel, and the session works",
        .enabled(if: TestKeyring.shouldRun, "needs an unlocked Secret Service: run under scripts/with-keyring")
    )
    func automaticWithSecretService() async throws {
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            try await LiveEmulator.with { emulator in
                var cli = try Self.cli(for: emulator, extra: ["SESSIONCTL_STORE": "auto"])
                defer { cli.cleanUp() }
                let login = try await cli.signIn()
                #expect(!login.stderr.contains("warning") && !login.stderr.contains("note"), "\(login.stderr)")
                let status = try await cli.run(["status", "--json"])
                let report = try SessionKit.JSONValue(parsing: Data(status.stdout.utf8))
                #expect(report["store"]?["backend"] == .string("keyring+encrypted-file"), "\(status.stderr)")
                let files = try FileManager.default.contentsOfDirectory(atPath: cli.sessionsFolder.path)
                #expect(!files.contains { $0.hasSuffix(".key") }, "\(files)")

                // The key is the Secret Service's item for this folder, and the kernel holds no copy of it.
                let folder = cli.sessionsFolder.standardizedFileURL.path
                let item = try SecretServiceStore(service: "sessionctl.file-key").data(forKey: folder)
                #expect(item?.count == 32)
                let cache = "sessionkit-cache:sessionctl.file-key:\(folder)"
                #expect(try KernelKeyring.shared.get().read(cache) == nil)
                let token = try await cli.run(["token"])
                #expect(token.status == 0, "\(token.stderr)")
                #expect(token.stdout.split(separator: ".").count == 3)

                // Where keyctl is allowed, the same token run does cache it: the check above could fail.
                cli.launcher = []
                #expect(try await cli.run(["token"]).status == 0)
                #expect(try KernelKeyring.shared.get().read(cache) == item)
                try KernelKeyring.shared.get().remove(cache)
                cli.launcher = Self.launcher
                #expect(try await cli.run(["logout", "--no-revoke"]).status == 0)
            }
        }
    }
}
