import SecureStore
import Synchronization
import Testing

@testable import SessionKitPostgres

/// How `leaseIfDue` calls become few statements: a call goes out alone when fewer than the limit are out, and the
/// calls that waited go out together. The statement here is a closure that records its batches and, when told,
/// holds until released; the real statement is in "PostgresSessionStore leases on read".
@Suite("Statement batcher")
struct StatementBatcherTests {
    typealias Batcher = StatementBatcher<Int, Int, String>

    @Test("a call with nothing out goes out at once, alone; the calls that wait meanwhile go out as one batch")
    func waitingCallsShareAStatement() async throws {
        let batcher = Batcher(maxInFlight: 1, maxBatch: 100, key: { $0 })
        let sends = Sends()
        let first = Task { try await batcher.submit(0, send: sends.send) }
        try await sends.waitForHeld(1)
        let rest = Task {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for request in 1...40 {
                    group.addTask { (request, try await batcher.submit(request, send: sends.send)) }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
        }
        try await Self.until { batcher.waitingCount == 40 }
        sends.release()
        #expect(try await first.value == "answer 0")
        let answers = try await rest.value
        #expect(
            answers.count == 40 && answers.allSatisfy { $0.value == "answer \($0.key)" }, "each call its own answer")
        #expect(sends.batches.map(\.count) == [1, 40])
    }

    @Test("two calls with the same key never share a statement, and no batch is larger than the most")
    func keysAndSize() async throws {
        let batcher = Batcher(maxInFlight: 1, maxBatch: 3, key: { $0 % 10 })
        let sends = Sends()
        let first = Task { try await batcher.submit(100, send: sends.send) }
        try await sends.waitForHeld(1)
        let requests = [1, 11, 2, 3, 4, 21]
        let rest = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for request in requests { group.addTask { try await batcher.submit(request, send: sends.send) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await Self.until { batcher.waitingCount == requests.count }
        sends.release()
        _ = try await first.value
        #expect(try await rest.value.count == requests.count)
        for batch in sends.batches {
            #expect(batch.count <= 3 && Set(batch.map { $0 % 10 }).count == batch.count, "batch \(batch)")
        }
        #expect(sends.batches.flatMap { $0 }.sorted() == ([100] + requests).sorted(), "each request sent once")
    }

    @Test("a statement the database never answered fails the waiting calls at once, with a retryable error")
    func unavailableFailsTheWaiting() async throws {
        let batcher = Batcher(maxInFlight: 1, maxBatch: 100, key: { $0 })
        let sends = Sends(failing: SecureStoreError(code: .unavailable, message: "did not answer"))
        let first = Task { try await batcher.submit(0, send: sends.send) }
        try await sends.waitForHeld(1)
        let waiting = (1...5).map { request in Task { try await batcher.submit(request, send: sends.send) } }
        try await Self.until { batcher.waitingCount == 5 }
        sends.release()
        await #expect(throws: SecureStoreError.self) { try await first.value }
        for call in waiting {
            let error = await #expect(throws: SecureStoreError.self) { try await call.value }
            #expect(error?.code == .unavailable)
        }
        #expect(sends.batches.count == 1, "nothing more was sent to a database that did not answer")
        // The next call goes out again.
        sends.failure = nil
        #expect(try await batcher.submit(7, send: sends.send) == "answer 7")
    }

    @Test(
        "a waiting call that is cancelled leaves at once; a cancelled caller whose statement is out fails no one else")
    func cancellation() async throws {
        let batcher = Batcher(maxInFlight: 1, maxBatch: 100, key: { $0 })
        let sends = Sends(failing: SecureStoreError(code: .unavailable, message: "cancelled"), whenCancelled: true)
        let leader = Task { try await batcher.submit(0, send: sends.send) }
        try await sends.waitForHeld(1)
        let leaving = Task { try await batcher.submit(1, send: sends.send) }
        let staying = Task { try await batcher.submit(2, send: sends.send) }
        try await Self.until { batcher.waitingCount == 2 }
        leaving.cancel()
        let left = await #expect(throws: SecureStoreError.self) { try await leaving.value }
        #expect(left?.code == .unavailable && batcher.waitingCount == 1)
        // The leader is cancelled while its own statement is out: it fails, the call that waits does not.
        leader.cancel()
        sends.release()
        await #expect(throws: SecureStoreError.self) { try await leader.value }
        #expect(try await staying.value == "answer 2")
        #expect(sends.batches == [[0], [2]])
    }

    @Test("several calls that waited linger for the ones right behind them; a lone one that waited does not")
    func linger() async throws {
        let batcher = Batcher(maxInFlight: 1, maxBatch: 100, linger: .seconds(1), key: { $0 })
        let sends = Sends()
        let first = Task { try await batcher.submit(0, send: sends.send) }
        try await sends.waitForHeld(1)
        let waited = (1...3).map { request in Task { try await batcher.submit(request, send: sends.send) } }
        try await Self.until { batcher.waitingCount == 3 }
        sends.release()
        _ = try await first.value
        // Made after the statement came back, during the linger: they join the calls that waited.
        let behind = (4...5).map { request in Task { try await batcher.submit(request, send: sends.send) } }
        for call in waited + behind { _ = try await call.value }
        #expect(sends.batches.map { $0.sorted() } == [[0], [1, 2, 3, 4, 5]])

        // A lone call that waited goes out as soon as the statement before it comes back: with a linger of a minute,
        // anything else would show.
        let slow = Batcher(maxInFlight: 1, maxBatch: 100, linger: .seconds(60), key: { $0 })
        let again = Sends()
        let leader = Task { try await slow.submit(0, send: again.send) }
        try await again.waitForHeld(1)
        let lone = Task { try await slow.submit(1, send: again.send) }
        try await Self.until { slow.waitingCount == 1 }
        let clock = ContinuousClock()
        let took = try await clock.measure {
            again.release()
            _ = try await leader.value
            #expect(try await lone.value == "answer 1")
        }
        #expect(took < .seconds(30), "the lone call was held \(took)")
    }

    @Test("a linger ends as soon as a whole batch waits")
    func lingerEndsWhenFull() async throws {
        let batcher = Batcher(maxInFlight: 1, maxBatch: 4, linger: .seconds(60), key: { $0 })
        let sends = Sends()
        let first = Task { try await batcher.submit(0, send: sends.send) }
        try await sends.waitForHeld(1)
        let waited = (1...2).map { request in Task { try await batcher.submit(request, send: sends.send) } }
        try await Self.until { batcher.waitingCount == 2 }
        let clock = ContinuousClock()
        let took = try await clock.measure {
            sends.release()
            _ = try await first.value
            // Two waited, fewer than a batch: the batch lingers; the two calls behind them make it whole.
            let behind = (3...4).map { request in Task { try await batcher.submit(request, send: sends.send) } }
            for call in waited + behind { _ = try await call.value }
        }
        #expect(took < .seconds(30), "the full batch was held \(took)")
        #expect(sends.batches.map { $0.sorted() } == [[0], [1, 2, 3, 4]])
    }

    @Test("a call that finds nothing out lingers when a statement went out moments ago, and goes with those behind it")
    func busyLoneCallLingers() async throws {
        let batcher = Batcher(maxInFlight: 1, maxBatch: 3, linger: .seconds(60), busyWithin: .seconds(60), key: { $0 })
        let sends = Sends()
        sends.release()
        // Nothing went out before the first call: it goes at once.
        #expect(try await batcher.submit(0, send: sends.send) == "answer 0")
        // Right behind it, nothing is out, but the server is busy: the next call lingers (a minute, unless a batch
        // fills) and the two after it join it.
        let first = Task { try await batcher.submit(1, send: sends.send) }
        try await Self.until { batcher.waitingCount == 1 }
        #expect(sends.batches.count == 1, "the call went out alone: \(sends.batches)")
        let behind = (2...3).map { request in Task { try await batcher.submit(request, send: sends.send) } }
        let clock = ContinuousClock()
        let took = try await clock.measure {
            for call in [first] + behind { _ = try await call.value }
        }
        #expect(took < .seconds(30), "the full batch was held \(took)")
        #expect(sends.batches.map { $0.sorted() } == [[0], [1, 2, 3]])
    }

    @Test("a lone call in a busy moment goes out after the linger; one after a quiet spell goes at once")
    func busyLingerIsBounded() async throws {
        // The batcher's clock is the test's: a call is held exactly as long as the clock says, however busy the
        // machine that runs the test.
        let clock = ManualClock()
        let batcher = Batcher(
            maxInFlight: 1, maxBatch: 100, linger: .milliseconds(300), busyWithin: .milliseconds(900), key: { $0 },
            now: { clock.now }, sleep: { await clock.sleep(for: $0) })
        let sends = Sends()
        sends.release()
        _ = try await batcher.submit(0, send: sends.send)
        // A moment later (the clock has not moved): the lone call lingers, and goes when its linger has passed.
        let lone = Task { try await batcher.submit(1, send: sends.send) }
        try await Self.until { clock.sleeperCount == 1 }
        clock.advance(by: .milliseconds(299))
        try await Task.sleep(for: .milliseconds(50))
        #expect(sends.batches == [[0]], "the lone call went before its linger had passed")
        clock.advance(by: .milliseconds(1))
        _ = try await lone.value
        #expect(sends.batches == [[0], [1]])
        // After a quiet spell, a call goes at once: the clock does not move while it is answered.
        clock.advance(by: .seconds(1))
        _ = try await batcher.submit(2, send: sends.send)
        #expect(sends.batches == [[0], [1], [2]])
        #expect(clock.sleeperCount == 0)

        // Without a linger, nothing is held, busy or not: answered with the clock standing still.
        let plain = Batcher(
            maxInFlight: 1, maxBatch: 100, busyWithin: .seconds(60), key: { $0 }, now: { clock.now },
            sleep: { await clock.sleep(for: $0) })
        _ = try await plain.submit(0, send: sends.send)
        _ = try await plain.submit(1, send: sends.send)
        #expect(clock.sleeperCount == 0)
    }

    @Test("a lone call cancelled while it lingers leaves at once, is never sent, and gives the statement's slot back")
    func busyLingerCancelled() async throws {
        let batcher = Batcher(maxInFlight: 1, maxBatch: 2, linger: .seconds(60), busyWithin: .seconds(60), key: { $0 })
        let sends = Sends()
        sends.release()
        _ = try await batcher.submit(0, send: sends.send)
        let leaving = Task { try await batcher.submit(1, send: sends.send) }
        try await Self.until { batcher.waitingCount == 1 }
        leaving.cancel()
        let left = await #expect(throws: SecureStoreError.self) { try await leaving.value }
        #expect(left?.code == .unavailable)
        // The slot is free again: the next two calls (busy, so they linger) fill a batch and go out together.
        let next = (2...3).map { request in Task { try await batcher.submit(request, send: sends.send) } }
        for call in next { _ = try await call.value }
        #expect(sends.batches.map { $0.sorted() } == [[0], [2, 3]])
    }

    /// Waits until `condition` holds, for at most 5 s.
    static func until(_ condition: () -> Bool) async throws {
        let start = ContinuousClock.now
        while !condition() {
            try #require(ContinuousClock.now - start < .seconds(30), "timed out")
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// The statement of these tests: records each batch; the first one holds until ``release()``.
private final class Sends: Sendable {
    private struct State {
        var batches: [[Int]] = []
        var held: [CheckedContinuation<Void, Never>] = []
        var released = false
        var failure: SecureStoreError?
    }

    private let state: Mutex<State>
    private let whenCancelled: Bool

    /// - Parameters:
    ///   - failing: The failure of every statement, or, with `whenCancelled`, of a statement whose caller was
    ///     cancelled.
    init(failing: SecureStoreError? = nil, whenCancelled: Bool = false) {
        state = Mutex(State(failure: failing))
        self.whenCancelled = whenCancelled
    }

    var batches: [[Int]] { state.withLock { $0.batches } }

    var failure: SecureStoreError? {
        get { state.withLock { $0.failure } }
        set { state.withLock { $0.failure = newValue } }
    }

    var send: StatementBatcher<Int, Int, String>.Send {
        { [self] requests in await run(requests) }
    }

    private func run(_ requests: [Int]) async -> [Result<String, SecureStoreError>] {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let go = state.withLock { state -> Bool in
                state.batches.append(requests)
                if state.released { return true }
                state.held.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
        let failure = state.withLock { $0.failure }
        if let failure, !whenCancelled || Task.isCancelled {
            return requests.map { _ in .failure(failure) }
        }
        return requests.map { .success("answer \($0)") }
    }

    func waitForHeld(_ count: Int) async throws {
        try await StatementBatcherTests.until { state.withLock { $0.held.count } >= count }
    }

    func release() {
        let held = state.withLock { state in
            state.released = true
            return state.held
        }
        for continuation in held { continuation.resume() }
    }
}
