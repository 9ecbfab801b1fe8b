import AuthEmulator
import Foundation
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

/// Runs the built `sessionctl` binary as a separate process, in an isolated home.
struct CLI: Sendable {
    /// The folder that stands in for the user's config and state folders.
    let home: URL
    /// Extra environment, such as the issuer and client id.
    var environment: [String: String]
    /// The program to run: `sessionctl`, or `sessionkit-emulator`.
    var program = "sessionctl"
    /// A program that runs the binary (its path, then the arguments, follow these), such as one that gives it a
    /// private session keyring; none by default.
    var launcher: [String] = []

    /// A CLI with a fresh home, configured (by environment) for `emulator`'s native client.
    static func make(for emulator: AuthEmulator? = nil, extra: [String: String] = [:]) throws -> CLI {
        let home = try TemporaryFolder(prefix: "sessionctl-tests").url
        // The file store unless a test asks for another: these tests read the store through its key file, and
        // run under scripts/with-keyring in CI, where `auto` would pick the keyring.
        var environment = ["SESSIONCTL_STORE": "file"].merging(extra) { $1 }
        if let emulator {
            environment["SESSIONCTL_ISSUER"] = emulator.issuer.absoluteString
            environment["SESSIONCTL_CLIENT_ID"] = AuthEmulator.Client.nativeID
        }
        return CLI(home: home, environment: environment)
    }

    /// The sessions folder this CLI uses.
    var sessionsFolder: URL { home.appendingPathComponent("state/sessionctl") }

    /// `sessionkit-emulator` in a fresh home.
    static func emulatorProgram() throws -> CLI {
        var cli = try make()
        cli.program = "sessionkit-emulator"
        return cli
    }

    /// The path of the built program `name`, next to the test bundle.
    static func binary(_ name: String = "sessionctl") throws -> String {
        try BuiltProgram.path(name)
    }

    /// A finished run.
    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
        var output: String { stdout + stderr }
    }

    /// A running process whose output can be watched before it ends.
    final class Running: Sendable {
        /// Bytes a pipe has delivered so far.
        final class Buffer: Sendable {
            private let data = Mutex(Data())
            func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }
            var contents: Data { data.withLock { $0 } }
        }

        let process: SpawnedProcess
        private let out = Buffer()
        private let err = Buffer()

        fileprivate init(_ process: SpawnedProcess) {
            self.process = process
            process.standardOutput.readabilityHandler = { [out] handle in out.append(handle.availableData) }
            process.standardError.readabilityHandler = { [err] handle in err.append(handle.availableData) }
        }

        /// Standard output so far.
        var stdoutText: String { String(decoding: out.contents, as: UTF8.self) }

        /// Standard error so far.
        var stderrText: String { String(decoding: err.contents, as: UTF8.self) }

        /// Waits until standard error contains `text`, up to `timeout`.
        func waitForStderr(containing text: String, timeout: Duration = .seconds(10)) async throws -> String {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let current = stderrText
                if current.contains(text) { return current }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestFailure("stderr never contained '\(text)'; it was: \(stderrText)")
        }

        /// Whether `handle`'s socket holds bytes not read yet.
        private static func hasUnread(_ handle: FileHandle) -> Bool {
            var byte: UInt8 = 0
            return recv(handle.fileDescriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
        }

        /// Waits for the process to end and returns its output.
        func finish(timeout: Duration = .seconds(30)) async throws -> Result {
            let deadline = ContinuousClock.now + timeout
            while process.isRunning {
                guard ContinuousClock.now < deadline else {
                    process.terminate()
                    throw TestFailure("sessionctl did not finish in \(timeout); stderr: \(stderrText)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            // The last output may still be unread: first until neither socket holds a byte (a busy machine outlasted
            // a fixed pause once: a test saw no output at all from a process that printed some), then for the
            // handler that read the last bytes to store them.
            let drained = ContinuousClock.now + .seconds(5)
            while Self.hasUnread(process.standardOutput) || Self.hasUnread(process.standardError),
                ContinuousClock.now < drained
            {
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(50))
            return Result(
                status: process.terminationStatus,
                stdout: String(decoding: out.contents, as: UTF8.self),
                stderr: stderrText
            )
        }
    }

    /// Starts `sessionctl arguments...`, with `input` on standard input.
    func start(_ arguments: [String], input: String? = nil) throws -> Running {
        let binary = try Self.binary(program)
        let process =
            try launcher.first.map {
                try SpawnedProcess(
                    path: $0, arguments: launcher.dropFirst() + [binary] + arguments, environment: processEnvironment)
            }
            ?? SpawnedProcess(path: binary, arguments: arguments, environment: processEnvironment)
        let running = Running(process)
        if let input { process.standardInput.write(Data(input.utf8)) }
        try process.standardInput.close()
        return running
    }

    /// The environment its processes get: this one without `SESSIONCTL_` settings, the fresh home, and the CLI's own.
    var processEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SESSIONCTL_") }
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        env["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        env["NO_COLOR"] = "1"
        env.merge(environment) { $1 }
        return env
    }

    /// Runs `sessionctl arguments...` to the end.
    func run(_ arguments: [String], input: String? = nil) async throws -> Result {
        try await start(arguments, input: input).finish()
    }

    /// Signs alice in with `login --password --password-stdin`.
    @discardableResult
    func signIn() async throws -> Result {
        let result = try await run(
            ["login", "--password-stdin", "--username", AuthEmulator.User.aliceEmail],
            input: AuthEmulator.User.alicePassword + "\n"
        )
        #expect(result.status == 0, "login failed: \(result.stderr)")
        return result
    }

    /// Flips a byte near the end of the stored session file, as disk damage would.
    func damageStore() throws {
        let storeFile = try #require(
            FileManager.default.contentsOfDirectory(atPath: sessionsFolder.path).first { $0.hasSuffix(".store") }
        )
        let path = sessionsFolder.appendingPathComponent(storeFile)
        var bytes = try Data(contentsOf: path)
        bytes[bytes.count - 5] ^= 0xFF
        try bytes.write(to: path)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: home)
    }
}

extension CLI.Result {
    /// What `process` (its standard input already closed) printed and how it ended, once it has.
    static func of(_ process: SpawnedProcess) async throws -> CLI.Result {
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        return CLI.Result(
            status: process.terminationStatus,
            stdout: String(decoding: process.standardOutput.readDataToEndOfFile(), as: UTF8.self),
            stderr: String(decoding: process.standardError.readDataToEndOfFile(), as: UTF8.self))
    }
}

/// A test step that could not go on, saying why.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
