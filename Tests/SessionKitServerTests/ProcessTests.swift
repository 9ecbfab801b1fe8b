import AuthEmulator
import Crypto
import Foundation
import SessionKit
import SessionKitPostgresTestSupport
import SessionKitSupport
import SessionKitTestSupport
import SessionKitTesting
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

/// Several real processes (`sessionkit-directory-load`), each one server instance, sharing one PostgreSQL and
/// one emulator: many users whose access tokens expire at once are renewed exactly once each, and no one is
/// signed out when an instance is killed in the middle of its renewals or PostgreSQL restarts under them.
@Suite(
    "Server instances as processes", .serialized, .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct ProcessTests {
    static let users = 1000
    static let processes = 4

    /// The sessions' shared set-up: a service, its sealing key, `users` signed-in sessions whose access tokens
    /// have expired, and their ids.
    struct Fleet {
        let service: String
        let key: SymmetricKey
        let keyHex: String
        let idsFile: URL
        let ids: [SessionID]
        let issuer: URL

        /// A directory on the fleet's sessions, in this process.
        func directory() async throws -> SessionDirectory {
            let store = try await TestPostgres.store(service: service, keys: try .init(current: (id: "load", key: key)))
            return SessionDirectory(
                provider: ProviderClient(
                    configuration: try ProviderConfiguration(issuer: issuer, clientID: "sessionkit-native")),
                store: store)
        }
    }

    /// Signs `users` sessions in through the load program (`LOAD_CREATE`), with their tokens stored as expired:
    /// every process renews them at once, and the renewed tokens (a day long) are not renewed again however
    /// slow the run.
    static func fleet(_ emulator: AuthEmulator, users: Int = users, expired: Bool = true) async throws -> Fleet {
        let key = SymmetricKey(size: .bits256)
        let folder = try TemporaryFolder(prefix: "sessionkit-processes").url
        let fleet = Fleet(
            service: "tests.processes.\(UUID().uuidString)", key: key,
            keyHex: key.withUnsafeBytes { Hex.string($0) },
            idsFile: folder.appendingPathComponent("ids"), ids: [], issuer: emulator.issuer)
        let (creator, _) = try start(
            fleet, index: -1,
            settings: [
                "LOAD_CREATE": "\(users)", "LOAD_EXPIRED": expired ? "1" : "0", "LOAD_CONCURRENCY": "16",
                "LOAD_PASSWORD": AuthEmulator.User.alicePassword,
            ])
        try await waitForExit(creator)
        guard creator.terminationStatus == 0 else {
            throw SessionKitError(code: .invalidInput, message: "signing the fleet in failed; see its output above")
        }
        let ids = try String(contentsOf: fleet.idsFile, encoding: .utf8).split(separator: "\n")
            .map { try SessionID(validating: String($0)) }
        return Fleet(
            service: fleet.service, key: key, keyHex: fleet.keyHex, idsFile: fleet.idsFile, ids: ids,
            issuer: emulator.issuer)
    }

    /// Starts one instance asking for every session's credentials, with `settings` added to its environment;
    /// its standard output goes to a file.
    static func start(_ fleet: Fleet, index: Int, settings: [String: String] = [:]) throws -> (Process, URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProgram.path("sessionkit-directory-load"))
        var environment = ProcessInfo.processInfo.environment
        environment["LOAD_SERVICE"] = fleet.service
        environment["LOAD_KEY_HEX"] = fleet.keyHex
        environment["LOAD_ISSUER"] = fleet.issuer.absoluteString
        environment["LOAD_IDS_FILE"] = fleet.idsFile.path
        environment["LOAD_CONCURRENCY"] = "50"
        environment.merge(settings) { $1 }
        process.environment = environment
        let output = fleet.idsFile.deletingLastPathComponent().appendingPathComponent("out-\(index)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.standardError
        try process.run()
        return (process, output)
    }

    /// Each session's line (`ok DIGEST` or `error CODE`) from one instance's output.
    static func results(_ output: URL) throws -> [Int: String] {
        var results: [Int: String] = [:]
        for line in try String(contentsOf: output, encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, let index = Int(parts[0]) { results[index] = String(parts[1]) }
        }
        return results
    }

    static func waitForExit(_ process: Process, timeout: Duration = .seconds(120)) async throws {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw SessionKitError(code: .timeout, message: "an instance did not finish in \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("4 instances x 1,000 users whose tokens expired together: one refresh per user, all see the same token")
    func renewedOncePerUser() async throws {
        try await LiveEmulator.with { emulator in
            let fleet = try await Self.fleet(emulator)
            defer { try? FileManager.default.removeItem(at: fleet.idsFile.deletingLastPathComponent()) }
            try await emulator.controls.resetRequestCounts()
            let started = try (0..<Self.processes).map { try Self.start(fleet, index: $0) }
            for (process, _) in started { try await Self.waitForExit(process) }
            for (process, _) in started { #expect(process.terminationStatus == 0) }
            let outputs = try started.map { try Self.results($0.1) }
            for index in 0..<Self.users {
                let seen = Set(outputs.map { $0[index] ?? "missing" })
                #expect(seen.count == 1 && seen.first?.hasPrefix("ok ") == true, "session \(index): \(seen)")
            }
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == Self.users)
        }
    }

    @Test("a logout on one process: every other process refuses the session within a second")
    func logoutSeenEverywhere() async throws {
        try await LiveEmulator.with { emulator in
            let fleet = try await Self.fleet(emulator, users: 20, expired: false)
            defer { try? FileManager.default.removeItem(at: fleet.idsFile.deletingLastPathComponent()) }
            let watchers = try (0..<3).map { try Self.start(fleet, index: $0, settings: ["LOAD_WATCH_SECONDS": "8"]) }
            // Every watcher has served every session once (from memory from now on) and listens for changes.
            try await Self.waitUntilReady(watchers.map(\.1))
            try await Task.sleep(for: .milliseconds(500))
            let loggedOut = 7
            let before = Int(Date().timeIntervalSince1970 * 1000)
            try await fleet.directory().logout(fleet.ids[loggedOut], revoke: false)
            for watcher in watchers { try await Self.waitForExit(watcher.0) }
            for index in watchers.indices {
                #expect(watchers[index].0.terminationStatus == 0)
                let refusals = try Self.refusals(watchers[index].1)
                // Only the session logged out, and within a second of the logout.
                #expect(refusals.keys.sorted() == [loggedOut], "instance \(index): \(refusals)")
                let delay = (refusals[loggedOut] ?? .max) - before
                #expect(delay < 1000, "instance \(index) refused it after \(delay) ms")
            }
        }
    }

    /// Waits (at most 30 s) until every output starts with `ready`.
    static func waitUntilReady(_ outputs: [URL]) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        for output in outputs {
            while ContinuousClock.now < deadline {
                if try String(contentsOf: output, encoding: .utf8).hasPrefix("ready") { break }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// When each session was refused (its `INDEX refused EPOCH_MS` lines), by index.
    static func refusals(_ output: URL) throws -> [Int: Int] {
        var refusals: [Int: Int] = [:]
        for line in try String(contentsOf: output, encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 3, parts[1] == "refused", let index = Int(parts[0]), let time = Int(parts[2]) {
                refusals[index] = time
            }
        }
        return refusals
    }

    @Test("an instance killed in the middle of its renewals: the others finish them, and no user is signed out")
    func killedInstance() async throws {
        // A refresh answer lost with the killed process can only be made good by the provider's reuse interval
        // (Auth0's rotation "leeway"): the token it rotated is presented once more by the instance that takes
        // over. Without one, those users must sign in again; README, "SessionKit on servers", says so.
        let configuration = LiveEmulator.configuration { $0.refreshTokenRotation.reuseInterval = 60 }
        try await LiveEmulator.with(configuration) { emulator in
            let fleet = try await Self.fleet(emulator)
            defer { try? FileManager.default.removeItem(at: fleet.idsFile.deletingLastPathComponent()) }
            // Slow answers, so that the kill lands while renewals are under way.
            try await emulator.controls.inject(.latency(0.2).only(.refreshToken), into: .token)
            try await emulator.controls.resetRequestCounts()
            let victim = try Self.start(fleet, index: 0)
            // Killed once the provider has received 20 of its refresh requests: answers are under way.
            let deadline = ContinuousClock.now + .seconds(60)
            while try await emulator.controls.requestCounts()[.refreshToken] < 20, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            kill(victim.0.processIdentifier, SIGKILL)
            let others = try (1..<Self.processes).map { try Self.start(fleet, index: $0) }
            for (process, _) in others { try await Self.waitForExit(process) }
            for (process, _) in others { #expect(process.terminationStatus == 0) }
            // Every answer is the session's one renewed token or, on a machine this busy, a retryable error;
            // never "sign in again".
            let outputs = try others.map { try Self.results($0.1) }
            for index in 0..<Self.users {
                let seen = Set(outputs.map { $0[index] ?? "missing" })
                let tokens = seen.filter { $0.hasPrefix("ok ") }
                #expect(tokens.count <= 1, "session \(index): \(seen)")
                #expect(
                    !seen.contains("missing") && !seen.contains("error signInRequired"), "session \(index): \(seen)")
            }
            // The kill lost answers the provider had sent: their refresh tokens were presented once more.
            #expect(try await emulator.controls.requestCounts()[.refreshToken] > Self.users)
            // And each session is still there for the next request, in a fresh instance.
            let directory = try await fleet.directory()
            for id in fleet.ids { _ = try await directory.credentials(for: id, minTTL: 0) }
        }
    }

    @Test(
        "PostgreSQL restarted in the middle of the renewals: no refresh token sent twice, no user signed out",
        .enabled(if: TestPostgres.canRestart, TestPostgres.restartNote))
    func restartedDatabase() async throws {
        let restart = try TestPostgres.restartCommand()
        try await LiveEmulator.with { emulator in
            let fleet = try await Self.fleet(emulator)
            defer { try? FileManager.default.removeItem(at: fleet.idsFile.deletingLastPathComponent()) }
            try await emulator.controls.inject(.latency(0.05).only(.refreshToken), into: .token)
            try await emulator.controls.resetRequestCounts()
            // Each instance retries a retryable error for up to a minute, as a browser retries a 503.
            let started = try (0..<Self.processes).map {
                try Self.start(fleet, index: $0, settings: ["LOAD_RETRY_SECONDS": "60"])
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while try await emulator.controls.requestCounts()[.refreshToken] < Self.users / 5,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(5))
            }
            let renewedBefore = try await emulator.controls.requestCounts()[.refreshToken]
            try await TestPostgres.run(restart)
            for (process, _) in started { try await Self.waitForExit(process) }
            for (process, _) in started { #expect(process.terminationStatus == 0) }
            #expect(renewedBefore < Self.users, "the restart came after the renewals; the test proves nothing")
            let outputs = try started.map { try Self.results($0.1) }
            for index in 0..<Self.users {
                let seen = Set(outputs.map { $0[index] ?? "missing" })
                #expect(seen.count == 1 && seen.first?.hasPrefix("ok ") == true, "session \(index): \(seen)")
            }
            // Whether a caller saw the restart depends on timing: a call whose statement was under way meets a
            // retryable error and tries again, while one that finds a connection the restart closed takes a new
            // one unseen (the store passes over closed connections before it sends). Either way, below: each
            // renewal was sent once and saved.
            // Renewals cut off by the restart were saved afterwards, not sent again.
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == Self.users)
        }
    }
}
