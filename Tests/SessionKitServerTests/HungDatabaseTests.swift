import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitPostgresTestSupport
import SessionKitTestSupport
import SessionKitTesting
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

/// PostgreSQL hung, not down: its processes stopped (SIGSTOP), so connections stay open and nothing answers.
/// Sessions whose tokens are valid in memory are served meanwhile; sessions whose renewal needs the database
/// wait, without holding a thread, and are kept, whether the database comes back within their call or after it.
@Suite(
    "A hung database stalls no session whose token is valid", .serialized,
    .enabled(if: TestPostgres.canRestart, TestPostgres.restartNote))
struct HungDatabaseTests {
    /// A directory over a store whose calls give up after `callTimeout`, with `valid` sessions (used once, so in
    /// memory) and `expired` ones.
    /// `call`'s answer once the thawed database answers again: a server that was stopped catches up on its
    /// connections first, and on a loaded machine a call can still meet the store's one-second deadline then.
    /// Only a retryable error is tried again (for at most 15 s), as the session was kept; any other fails the test.
    static func afterThaw<T>(_ call: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(15)
        while true {
            do {
                return try await call()
            } catch let error as SessionKitError where error.isRetryable && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    static func setUp(
        _ emulator: AuthEmulator, valid: Int, expired: Int, callTimeout: Duration
    ) async throws -> (directory: SessionDirectory, valid: [SessionID], expired: [SessionID]) {
        let store = try await TestPostgres.store { $0.callTimeout = callTimeout }
        let provider = ProviderClient(configuration: try emulator.providerConfiguration())
        let directory = SessionDirectory(provider: provider, store: store)
        func signIn() async throws -> Credentials {
            try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
        }
        var validIDs: [SessionID] = []
        for _ in 0..<valid {
            let id = try await directory.create(try await signIn())
            _ = try await directory.credentials(for: id)
            validIDs.append(id)
        }
        var expiredIDs: [SessionID] = []
        for _ in 0..<expired {
            var credentials = try await signIn()
            credentials.expiresAt = Date(timeIntervalSinceNow: -1)
            expiredIDs.append(try await directory.create(credentials))
        }
        return (directory, validIDs, expiredIDs)
    }

    @Test("frozen for 2 s: valid sessions answer within 100 ms while 20 renewals wait; all renew once it thaws")
    func servedWhileFrozen() async throws {
        try await LiveEmulator.with { emulator in
            let (directory, valid, expired) = try await Self.setUp(
                emulator, valid: 5, expired: 20, callTimeout: .seconds(10))
            let refreshesBefore = try await emulator.controls.requestCounts()[.refreshToken]
            let frozen = try FrozenPostgres.freeze()
            var thawed = false
            defer { if !thawed { frozen.thaw() } }
            let renewals = Task {
                try await withThrowingTaskGroup(of: Credentials.self) { group in
                    for id in expired { group.addTask { try await directory.credentials(for: id) } }
                    return try await group.reduce(into: [Credentials]()) { $0.append($1) }
                }
            }
            try await Task.sleep(for: .milliseconds(300))  // the renewals are waiting for the database
            var slowest = Duration.zero
            for _ in 0..<40 {
                for id in valid {
                    let start = ContinuousClock.now
                    _ = try await directory.credentials(for: id)
                    slowest = max(slowest, ContinuousClock.now - start)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(slowest < .milliseconds(100), "the slowest of 200 calls took \(slowest) while the database hung")
            frozen.thaw()
            thawed = true
            let renewed = try await renewals.value
            #expect(renewed.count == expired.count)
            #expect(renewed.allSatisfy { $0.isValid(now: Date()) })
            let refreshes = try await emulator.controls.requestCounts()[.refreshToken] - refreshesBefore
            #expect(refreshes == expired.count, "one refresh per session")
        }
    }

    @Test("frozen past the call's deadline: a retryable error, the session kept, renewed once it thaws")
    func keptPastTheDeadline() async throws {
        try await LiveEmulator.with { emulator in
            let (directory, valid, expired) = try await Self.setUp(
                emulator, valid: 1, expired: 1, callTimeout: .seconds(1))
            let frozen = try FrozenPostgres.freeze()
            var thawed = false
            defer { if !thawed { frozen.thaw() } }
            let start = ContinuousClock.now
            let error = await #expect(throws: SessionKitError.self) {
                try await directory.credentials(for: expired[0])
            }
            #expect(ContinuousClock.now - start < .seconds(5), "answered at the store's deadline")
            #expect(error?.isRetryable == true, "\(String(describing: error))")
            #expect(error?.code == .storeUnavailable)
            _ = try await directory.credentials(for: valid[0])
            frozen.thaw()
            thawed = true
            let renewed = try await Self.afterThaw {
                try await directory.credentials(for: expired[0])
            }
            #expect(renewed.isValid(now: Date()))
        }
    }

    @Test("frozen with 30 first reads at once: all answered at the store's deadline, not one after another")
    func batchedReadsAnsweredAtTheDeadline() async throws {
        try await LiveEmulator.with { emulator in
            let (first, _, expired) = try await Self.setUp(
                emulator, valid: 0, expired: 30, callTimeout: .seconds(1))
            // Another instance, which has read none of them: its first calls read the store.
            let directory = SessionDirectory(provider: first.provider, store: first.store)
            let frozen = try FrozenPostgres.freeze()
            var thawed = false
            defer { if !thawed { frozen.thaw() } }
            let start = ContinuousClock.now
            // One read goes out and hangs; the others wait for it, and are answered when it gives up.
            let answers = await withTaskGroup(of: (SessionKitError?, Duration).self) { group in
                for id in expired {
                    group.addTask {
                        do throws(SessionKitError) {
                            _ = try await directory.credentials(for: id)
                            return (nil, ContinuousClock.now - start)
                        } catch {
                            return (error, ContinuousClock.now - start)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let slowest = answers.map(\.1).max() ?? .zero
            #expect(answers.allSatisfy { $0.0?.code == .storeUnavailable }, "\(answers.map { $0.0?.code })")
            #expect(slowest < .milliseconds(1800), "the last answer came after \(slowest), a deadline after another")
            // The calls that waited were never sent to the database that had not answered the one before.
            let unsent = answers.filter { $0.0?.message.contains("so it was not sent") == true }.count
            #expect(unsent >= expired.count - 2, "\(unsent) of \(expired.count) calls answered without being sent")
            frozen.thaw()
            thawed = true
            for id in expired {
                let renewed = try await Self.afterThaw {
                    try await directory.credentials(for: id)
                }
                #expect(renewed.isValid(now: Date()), "kept, and renewed")
            }
        }
    }
}
