import Foundation
import SecureStore
import Synchronization
import Testing

@testable import SessionKitPostgres

/// The probe that finds out why the pool hands out no connection: one at a time, whatever the number of calls
/// waiting. Its probe here is a closure that counts itself; the real one (a connection to a server that is down)
/// is in "PostgresSessionStore failures".
///
/// The probe, the calls' deadlines and the answer's lifetime all run on a ``ManualClock``: time passes only when a
/// test moves it, so what each test proves holds however slowly a loaded machine runs the tasks.
@Suite("Connection probe")
struct ConnectionProbeTests {
    @Test("a hundred calls that wait at once share one probe, and a call just after reuses its answer")
    func oneProbeForAll() async throws {
        let clock = ManualClock()
        let probe = ConnectionProbe.on(clock)
        let runs = Runs()
        let refused = SecureStoreError(code: .unavailable, message: "refused")
        async let answers = withTaskGroup(of: SecureStoreError?.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    await probe.failure(within: .seconds(5)) {
                        runs.count.add(1, ordering: .relaxed)
                        await clock.sleep(for: .milliseconds(200))
                        return refused
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // Every call waits (a deadline each), and so does the one probe they share.
        try await clock.untilSleeping(101)
        #expect(runs.count.load(ordering: .relaxed) == 1)
        clock.advance(by: .milliseconds(200))
        let answered = await answers
        #expect(runs.count.load(ordering: .relaxed) == 1)
        #expect(answered.count == 100 && answered.allSatisfy { $0?.message == "refused" })
        #expect(clock.sleeperCount == 0, "every deadline ended with the answer")
        let again = await probe.failure(within: .seconds(5)) {
            runs.count.add(1, ordering: .relaxed)
            return nil
        }
        #expect(
            again?.message == "refused" && runs.count.load(ordering: .relaxed) == 1, "the answer stands for a moment")
    }

    @Test("a call whose deadline comes first gets no answer and leaves the probe running for the others")
    func deadlineLeavesProbe() async throws {
        let clock = ManualClock()
        let probe = ConnectionProbe.on(clock)
        let runs = Runs()
        let slow = runs.probe(on: clock, taking: .milliseconds(300), answering: .permissionDenied, "wrong password")
        async let patient = probe.failure(within: .seconds(5), probe: slow)
        try await clock.untilSleeping(2)  // the probe, and the patient call's deadline
        async let hurried = probe.failure(within: .milliseconds(20), probe: slow)
        try await clock.untilSleeping(3)
        clock.advance(by: .milliseconds(20))
        #expect(await hurried == nil)
        #expect(clock.sleeperCount == 2, "the probe still runs, and the patient call still waits for it")
        clock.advance(by: .milliseconds(280))
        #expect(await patient?.code == .permissionDenied)
        #expect(runs.count.load(ordering: .relaxed) == 1)
    }

    @Test("a cancelled call leaves at once, and the probe goes on for the others")
    func cancelledCallLeaves() async throws {
        let clock = ManualClock()
        let probe = ConnectionProbe.on(clock)
        let runs = Runs()
        let slow = runs.probe(on: clock, taking: .milliseconds(300), answering: .unavailable, "refused")
        let leaving = Task { await probe.failure(within: .seconds(5), probe: slow) }
        try await clock.untilSleeping(2)
        async let staying = probe.failure(within: .seconds(5), probe: slow)
        try await clock.untilSleeping(3)
        leaving.cancel()
        #expect(await leaving.value == nil)
        #expect(clock.sleeperCount == 2, "the probe still runs, and the other call still waits for it")
        clock.advance(by: .milliseconds(300))
        #expect(await staying?.message == "refused")
        #expect(runs.count.load(ordering: .relaxed) == 1)
    }

    @Test("once the answer is older than its lifetime, the next call probes again")
    func answerExpires() async throws {
        let clock = ManualClock()
        let probe = ConnectionProbe.on(clock)
        let runs = Runs()
        let count: @Sendable () async -> SecureStoreError? = {
            runs.count.add(1, ordering: .relaxed)
            return nil
        }
        #expect(await probe.failure(within: .seconds(1), probe: count) == nil)
        clock.advance(by: ConnectionProbe.answerLifetime - .milliseconds(1))
        #expect(await probe.failure(within: .seconds(1), probe: count) == nil)
        #expect(runs.count.load(ordering: .relaxed) == 1, "the answer still stands")
        clock.advance(by: .milliseconds(1))
        #expect(await probe.failure(within: .seconds(1), probe: count) == nil)
        #expect(runs.count.load(ordering: .relaxed) == 2)
    }
}

/// How many times a probe ran, shared by the concurrent calls of a test.
private final class Runs: Sendable {
    let count = Atomic<Int>(0)

    /// A probe that counts itself here, takes `duration` on `clock`, and answers with an error of `code`.
    func probe(
        on clock: ManualClock, taking duration: Duration, answering code: SecureStoreError.Code, _ message: String
    ) -> @Sendable () async -> SecureStoreError? {
        { [self] in
            count.add(1, ordering: .relaxed)
            await clock.sleep(for: duration)
            return SecureStoreError(code: code, message: message)
        }
    }
}

extension ConnectionProbe {
    /// A probe whose lifetimes and deadlines run on `clock`.
    fileprivate static func on(_ clock: ManualClock) -> ConnectionProbe {
        ConnectionProbe(now: { clock.now }, sleep: { await clock.sleep(for: $0) })
    }
}
