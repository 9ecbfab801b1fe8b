import Foundation
import SecureStore
import Synchronization
import Testing

@testable import SessionKitPostgres

/// The probe that finds out why the pool hands out no connection: one at a time, whatever the number of calls
/// waiting. Its probe here is a closure that counts itself; the real one (a connection to a server that is down)
/// is in "PostgresSessionStore failures".
@Suite("Connection probe")
struct ConnectionProbeTests {
    @Test("a hundred calls that wait at once share one probe, and a call just after reuses its answer")
    func oneProbeForAll() async {
        let probe = ConnectionProbe()
        let runs = Runs()
        let refused = SecureStoreError(code: .unavailable, message: "refused")
        let answers = await withTaskGroup(of: SecureStoreError?.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    await probe.failure(within: .seconds(5)) {
                        runs.count.add(1, ordering: .relaxed)
                        try? await Task.sleep(for: .milliseconds(200))
                        return refused
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.count.load(ordering: .relaxed) == 1)
        #expect(answers.count == 100 && answers.allSatisfy { $0?.message == "refused" })
        let again = await probe.failure(within: .seconds(5)) {
            runs.count.add(1, ordering: .relaxed)
            return nil
        }
        #expect(
            again?.message == "refused" && runs.count.load(ordering: .relaxed) == 1, "the answer stands for a moment")
    }

    @Test("a call whose deadline comes first gets no answer and leaves the probe running for the others")
    func deadlineLeavesProbe() async {
        let probe = ConnectionProbe()
        let runs = Runs()
        let slow: @Sendable () async -> SecureStoreError? = {
            runs.count.add(1, ordering: .relaxed)
            try? await Task.sleep(for: .milliseconds(300))
            return SecureStoreError(code: .permissionDenied, message: "wrong password")
        }
        async let patient = probe.failure(within: .seconds(5), probe: slow)
        try? await Task.sleep(for: .milliseconds(50))
        let hurried = await probe.failure(within: .milliseconds(20), probe: slow)
        #expect(hurried == nil)
        #expect(await patient?.code == .permissionDenied)
        #expect(runs.count.load(ordering: .relaxed) == 1)
    }

    @Test("once the answer is older than its lifetime, the next call probes again")
    func answerExpires() async throws {
        let probe = ConnectionProbe()
        let runs = Runs()
        let count: @Sendable () async -> SecureStoreError? = {
            runs.count.add(1, ordering: .relaxed)
            return nil
        }
        #expect(await probe.failure(within: .seconds(1), probe: count) == nil)
        try await Task.sleep(for: ConnectionProbe.answerLifetime + .milliseconds(100))
        #expect(await probe.failure(within: .seconds(1), probe: count) == nil)
        #expect(runs.count.load(ordering: .relaxed) == 2)
    }
}

/// How many times a probe ran, shared by the concurrent calls of a test.
private final class Runs: Sendable {
    let count = Atomic<Int>(0)
}
