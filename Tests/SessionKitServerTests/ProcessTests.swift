import AuthEmulator
import Crypto
import Foundation
import SessionKit
import SessionKitTesting
import Testing

@testable import SessionKitServer

/// Several real processes (`sessionkit-directory-load`), each one server instance, sharing one PostgreSQL and
/// one emulator: many users whose access tokens expire at once are renewed exactly once each, and no one is
/// signed out when an instance is killed in the middle of its renewals.
@Suite(
    "Server instances as processes", .serialized, .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct ProcessTests {
    static let users = 200
    static let processes = 4

    /// The sessions' shared set-up: a service, its sealing key, `users` signed-in sessions and their ids.
    struct Fleet {
        let service: String
        let key: SymmetricKey
        let keyHex: String
        let idsFile: URL
        let ids: [SessionID]
        let credentials: [Credentials]
    }

    static func fleet(_ emulator: AuthEmulator) async throws -> Fleet {
        let service = "tests.processes.\(UUID().uuidString)"
        let key = SymmetricKey(size: .bits256)
        let keyHex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        let store = try TestPostgres.store(service: service, keys: try .init(current: (id: "load", key: key)))
        let directory = SessionDirectory(
            provider: ProviderClient(configuration: try emulator.providerConfiguration()), store: store)
        let signedIn = try await withThrowingTaskGroup(of: (SessionID, Credentials).self) { group in
            var configuration = try emulator.providerConfiguration()
            configuration.requestTimeout = .seconds(30)
            let provider = ProviderClient(configuration: configuration)
            var results: [(SessionID, Credentials)] = []
            for index in 0..<users {
                // 16 sign-ins at a time: the emulator answers them, in this process, within the timeout.
                if index >= 16, let result = try await group.next() { results.append(result) }
                group.addTask {
                    let credentials = expired(
                        try await provider.signIn(
                            username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)))
                    return (try await directory.create(credentials), credentials)
                }
            }
            return try await group.reduce(into: results) { $0.append($1) }
        }
        let folder = try TemporaryFolder(prefix: "sessionkit-processes").url
        let idsFile = folder.appendingPathComponent("ids")
        try signedIn.map(\.0.rawValue).joined(separator: "\n").write(to: idsFile, atomically: true, encoding: .utf8)
        return Fleet(
            service: service, key: key, keyHex: keyHex, idsFile: idsFile, ids: signedIn.map(\.0),
            credentials: signedIn.map(\.1))
    }

    /// `credentials` as the store holds them once their access token has expired: every process renews
    /// them at once, and the renewed tokens (a day long) are not renewed again however slow the run.
    static func expired(_ credentials: Credentials) -> Credentials {
        Credentials(
            accessToken: credentials.accessToken, tokenType: credentials.tokenType, idToken: credentials.idToken,
            refreshToken: credentials.refreshToken, expiresAt: Date(timeIntervalSinceNow: -1), scope: credentials.scope,
            receivedAt: Date(timeIntervalSinceNow: -3600))
    }

    /// Starts one instance asking for every session's credentials; its standard output goes to a file.
    static func start(_ fleet: Fleet, issuer: URL, index: Int) throws -> (Process, URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProgram.path("sessionkit-directory-load"))
        var environment = ProcessInfo.processInfo.environment
        environment["LOAD_SERVICE"] = fleet.service
        environment["LOAD_KEY_HEX"] = fleet.keyHex
        environment["LOAD_ISSUER"] = issuer.absoluteString
        environment["LOAD_IDS_FILE"] = fleet.idsFile.path
        environment["LOAD_CONCURRENCY"] = "50"
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

    @Test("4 instances x 200 users whose tokens expired together: one refresh per user, all see the same token")
    func renewedOncePerUser() async throws {
        try await LiveEmulator.with { emulator in
            let fleet = try await Self.fleet(emulator)
            defer { try? FileManager.default.removeItem(at: fleet.idsFile.deletingLastPathComponent()) }
            try await emulator.controls.resetRequestCounts()
            let started = try (0..<Self.processes).map { try Self.start(fleet, issuer: emulator.issuer, index: $0) }
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
            let victim = try Self.start(fleet, issuer: emulator.issuer, index: 0)
            // Killed once the provider has received 20 of its refresh requests: answers are under way.
            let deadline = ContinuousClock.now + .seconds(60)
            while try await emulator.controls.requestCounts()[.refreshToken] < 20, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            kill(victim.0.processIdentifier, SIGKILL)
            let others = try (1..<Self.processes).map { try Self.start(fleet, issuer: emulator.issuer, index: $0) }
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
            let store = try TestPostgres.store(
                service: fleet.service,
                keys: try .init(current: (id: "load", key: fleet.key)))
            let directory = SessionDirectory(
                provider: ProviderClient(configuration: try emulator.providerConfiguration()), store: store)
            for id in fleet.ids { _ = try await directory.credentials(for: id, minTTL: 0) }
        }
    }
}
