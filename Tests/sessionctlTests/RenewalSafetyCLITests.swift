import AuthEmulator
import Foundation
import SessionKitTestSupport
import SessionKitTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 17 through real processes: a transient failure at any step of `sessionctl`'s renewal, or the
/// process itself killed, never ends the session.
@Suite("Renewal safety through sessionctl processes")
struct RenewalSafetyCLITests {
    @Test("one 503 from the key set during a new process's refresh keeps the session (the issue's recipe)")
    func keySetFailure() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            try await emulator.controls.resetRequestCounts()
            try await emulator.controls.inject(.status(503).times(1), into: .jwks)
            let first = try await cli.run(["refresh"])
            #expect([0, 2].contains(first.status), "\(first.stderr)")
            #expect(!first.stderr.contains("sign in again"), "\(first.stderr)")
            let second = try await cli.run(["refresh"])
            #expect(second.status == 0, "the session still renews: \(second.stderr)")
            #expect(try await cli.run(["token"]).status == 0)
            // One grant for each refresh that got as far as the token endpoint, never two for one token.
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == (first.status == 0 ? 2 : 1))
        }
    }

    /// The provider processes the refresh (the token rotates) and the answer never comes back; the process
    /// is killed while it waits. Within the provider's reuse interval the next process renews at once.
    @Test("sessionctl killed after the provider rotated the token: the next token renews at once")
    func killedAfterRotation() async throws {
        let configuration = LiveEmulator.configuration {
            $0.lifetimes.accessToken = 2
            $0.refreshTokenRotation.reuseInterval = 60
        }
        try await LiveEmulator.with(configuration) { emulator in
            try await killMidRenewal(emulator, fault: .processThenStall)
        }
    }

    /// The process is killed before the provider has seen the refresh: the old token is still good.
    @Test("sessionctl killed before the provider answered: the next token renews at once")
    func killedBeforeAnswer() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.lifetimes.accessToken = 2 }) { emulator in
            try await killMidRenewal(emulator, fault: .stalledBody)
        }
    }

    /// Issue 12, item 3: tokens that live 2 s and `token --min-ttl 60` (the default). Every process used to
    /// renew in turn; a freshly renewed token is as good as the provider gives, so one request serves all.
    @Test("token --min-ttl renews a used token; concurrent calls asking more than tokens live renew once")
    func minTTLLongerThanLifetime() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.lifetimes.accessToken = 3 }) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            try await emulator.controls.resetRequestCounts()
            let first = try await cli.run(["token", "--min-ttl", "0"]).stdout
            try await Task.sleep(for: .milliseconds(1100))
            // A third of its life gone: not valid for 2 more seconds, and the provider gives 3, so renew.
            let used = try await cli.run(["token", "--min-ttl", "2"])
            #expect(used.status == 0 && used.stdout != first && used.stderr.isEmpty, "\(used.stderr)")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            try await Task.sleep(for: .milliseconds(3100))
            try await emulator.controls.resetRequestCounts()
            let running = try (0..<6).map { _ in try cli.start(["token"]) }
            var results: [CLI.Result] = []
            for process in running { results.append(try await process.finish()) }
            #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
            #expect(Set(results.map(\.stdout)).count == 1, "every process prints the same renewed token")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            let notes = results.filter { $0.stderr.contains("less than --min-ttl 60") }
            #expect(notes.count >= 1, "the renewing process says why the token is shorter than asked")
        }
    }

    private func killMidRenewal(_ emulator: AuthEmulator, fault: AuthEmulator.Fault) async throws {
        let cli = try CLI.make(for: emulator)
        defer { cli.cleanUp() }
        try await cli.signIn()
        try await emulator.controls.resetRequestCounts()
        try await emulator.controls.inject(fault.only(.refreshToken).times(1), into: .token)
        let renewing = try cli.start(["refresh"])
        let deadline = ContinuousClock.now + .seconds(20)
        while try await emulator.controls.requestCounts()[.refreshToken] == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(300))  // the provider has processed it, or is sleeping on it
        kill(renewing.process.processIdentifier, SIGKILL)
        _ = try await renewing.finish()
        try await Task.sleep(for: .milliseconds(2100))  // the stored access token has expired
        let started = ContinuousClock.now
        let token = try await cli.start(["token"]).finish(timeout: .seconds(20))
        #expect(token.status == 0, "\(token.stderr)")
        #expect(ContinuousClock.now - started < .seconds(10), "the dead process's lease did not make it wait")
        #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2)
        #expect(try await cli.run(["refresh"]).status == 0, "and the session goes on renewing")
    }
}
