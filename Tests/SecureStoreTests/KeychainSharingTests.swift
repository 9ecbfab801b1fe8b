import AuthEmulator
import Foundation
import SecureStore
import SecureStoreTesting
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An app and its extensions share one session: `KeychainStore` in a shared access group, with its
/// `crossProcessLock` in the shared App Group container. Each is a process of its own (`sessionkit-app-process`)
/// over one keychain model in a shared folder: the model makes each keychain call atomic across the
/// processes and nothing more, as the keychain does, so only the lock file keeps a read and a write together.
/// The provider is the live emulator with refresh-token rotation and reuse detection.
@Suite("An app and its extensions share one session through the keychain")
struct KeychainSharingTests {
    /// A shared folder: the keychain model, and the App Group container with the lock file.
    struct Shared {
        let folder: String
        var model: String { folder + "/keychain" }
        var lock: String { folder + "/group-container/session.lock" }

        init(_ folder: String) throws {
            self.folder = folder
            try FileManager.default.createDirectory(
                atPath: folder + "/group-container", withIntermediateDirectories: true)
        }

        var store: KeychainStore {
            KeychainStore(
                service: "com.example.app.session", accessGroup: "TEAMID.com.example.shared",
                crossProcessLock: URL(fileURLWithPath: lock),
                backend: KeychainModel(
                    folder: URL(fileURLWithPath: model),
                    accessGroups: ["TEAMID.com.example.app", "TEAMID.com.example.shared"]))
        }
    }

    /// Starts the app process with `arguments`.
    static func start(_ shared: Shared, lock: Bool = true, _ arguments: [String]) throws -> SpawnedProcess {
        let process = try SpawnedProcess(
            path: try ChildProcess.toolPath("sessionkit-app-process"),
            arguments: [shared.model, lock ? shared.lock : "-"] + arguments,
            environment: ProcessInfo.processInfo.environment)
        try process.standardInput.close()
        return process
    }

    /// Waits for the process to end and returns its standard output, trimmed.
    static func finish(_ process: SpawnedProcess) async throws -> String {
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        let output = process.standardOutput.readDataToEndOfFile()
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Signs alice in and stores the session with its access token already expired, as the app left it.
    static func storeExpiredSession(_ emulator: AuthEmulator, in shared: Shared) async throws {
        let provider = ProviderClient(configuration: try emulator.providerConfiguration())
        var credentials = try await provider.signIn(
            username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
        credentials.expiresAt = Date(timeIntervalSinceNow: -10)
        try await SessionManager(provider: provider, store: shared.store).store(credentials)
    }

    static func credentialsArguments(_ emulator: AuthEmulator, lease: Int = 30) -> [String] {
        ["credentials", emulator.issuer.absoluteString, AuthEmulator.Client.nativeID, String(lease)]
    }

    @Test("update is atomic across processes with the lock file (3 x 300 increments, none lost), not without")
    func incrementsAcrossProcesses() async throws {
        try await TemporaryFolder.with { folder in
            for lock in [true, false] {
                let shared = try Shared(folder + "/\(lock)")
                // The three loops start together once every process is up, so that they overlap however slowly
                // the processes start on a loaded machine.
                let go = shared.folder + "/go"
                let started = try (0..<3).map { _ in
                    try Self.start(shared, lock: lock, ["increment", String(Self.increments), go])
                }
                _ = FileManager.default.createFile(atPath: go, contents: nil)
                for process in started {
                    _ = try await Self.finish(process)
                    #expect(process.terminationStatus == 0, "lock file: \(lock)")
                }
                let counted = Int(try shared.store.string(forKey: "counter") ?? "") ?? 0
                if lock {
                    #expect(counted == 3 * Self.increments)
                } else {
                    // The model, as the keychain, makes each call atomic and nothing more: without the lock file
                    // the processes' reads and writes interleave (about 45% of the increments lost here).
                    #expect(counted < 3 * Self.increments, "the control: without the lock file, updates are lost")
                }
            }
        }
    }

    /// Increments per process. The lock file is taken by polling (`FileLock`), which does not queue waiters: a
    /// process looping on `update` can hold off the others for a while, so the loops are kept short enough for
    /// the lock's 10 s timeout on a loaded 2-core machine (1,000 each timed a process out in CI).
    static let increments = 300

    @Test("an app and its extension ask for an expired session at once: one refresh, the same token for both")
    func renewedOnce() async throws {
        try await LiveEmulator.with { emulator in
            try await TemporaryFolder.with { folder in
                let shared = try Shared(folder)
                try await Self.storeExpiredSession(emulator, in: shared)
                // Slow answers, so that both processes are asking while the renewal is under way.
                try await emulator.controls.inject(AuthEmulator.Fault.latency(1).only(.refreshToken), into: .token)
                try await emulator.controls.resetRequestCounts()
                let started = try (0..<2).map { _ in try Self.start(shared, Self.credentialsArguments(emulator)) }
                var answers: [String] = []
                for process in started { answers.append(try await Self.finish(process)) }
                #expect(answers[0].hasPrefix("ok ") && answers[0] == answers[1], "\(answers)")
                #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            }
        }
    }

    @Test("the process renewing is killed mid-renewal: the other takes over, and nobody is signed out")
    func killedMidRenewal() async throws {
        // The killed process's grant may have been processed by the provider, its answer lost: the survivor
        // presents that refresh token once more, which the provider accepts within its reuse interval (README,
        // "The failure policy"). The survivor takes over at once here, since the lease names a process of this
        // host that no longer exists; where it cannot tell (another sandbox), it waits out the 3 s lease.
        let configuration = LiveEmulator.configuration { $0.refreshTokenRotation.reuseInterval = 60 }
        try await LiveEmulator.with(configuration) { emulator in
            try await TemporaryFolder.with { folder in
                let shared = try Shared(folder)
                try await Self.storeExpiredSession(emulator, in: shared)
                try await emulator.controls.inject(
                    AuthEmulator.Fault.latency(2).only(.refreshToken).times(1), into: .token)
                try await emulator.controls.resetRequestCounts()
                // A lease of 3 s: how long the others wait for a renewer that never comes back.
                let app = try Self.start(shared, Self.credentialsArguments(emulator, lease: 3))
                let sent = ContinuousClock.now
                while try await emulator.controls.requestCounts()[.refreshToken] == 0 {
                    try #require(ContinuousClock.now - sent < .seconds(20), "the app never sent its refresh")
                    try await Task.sleep(for: .milliseconds(10))
                }
                let fileExtension = try Self.start(shared, Self.credentialsArguments(emulator, lease: 3))
                try await Task.sleep(for: .milliseconds(300))  // the extension found the lease and waits
                kill(app.processIdentifier, SIGKILL)
                let answer = try await Self.finish(fileExtension)
                #expect(answer.hasPrefix("ok "), "the extension got a token: \(answer)")
                // The session is still there for the next launch, with the extension's token.
                let next = try await Self.finish(try Self.start(shared, Self.credentialsArguments(emulator)))
                #expect(next == answer)
                #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2)
            }
        }
    }
}
