import SecureStore
import Synchronization

/// Sends concurrent calls of one kind as few statements: a call made while `maxInFlight` statements of its kind
/// are already out waits, and when one comes back, everything that waited goes out together (up to `maxBatch`).
/// A call made when fewer are out goes out at once, alone, and so does a lone call that waited: an idle or quiet
/// server answers as fast as before. When several waited, the batch lingers (`linger`) for the calls right behind
/// them, until a whole batch waits: in a storm, calls arrive at a steady rate, and a statement's round trip gathers
/// only one or two of them (`Benchmarks/server-profile.sh`, 3,000 sessions × 4 instances: 1.6 calls a statement;
/// with 8 ms, 5 calls a statement, a third fewer statements, the renewals sooner).
///
/// A call made when nothing is out lingers too when the server is busy: when a statement of its kind went out less
/// than `busyWithin` ago. In a renewal storm the commits come one grant answer at a time, a few milliseconds apart,
/// and a statement's round trip is shorter than that, so most found nothing out and went alone: about 4 commits a
/// statement in `Benchmarks/server-storm.sh` (10,000 sessions × 4 instances); lingering, about 9, half the
/// statements in all, and a storm 8% shorter. Calls further apart than `busyWithin` still go out at once.
///
/// Two requests with the same `key` never share a statement (the later one waits for the next): one statement
/// updates a row once.
///
/// A statement that fails as ``SecureStore/SecureStoreError/Code/unavailable`` (the database did not answer in
/// time, or is gone) fails the calls still waiting as well, at once: they would have been sent to the same
/// database. A waiting call that is cancelled leaves at once; one whose statement is out waits for it.
///
/// Batches after the first run in tasks of their own, so a caller cancelled in the middle of one never fails
/// other callers' calls.
final class StatementBatcher<Request: Sendable, Key: Hashable & Sendable, Answer: Sendable>: Sendable {
    /// Sends a batch in one statement and answers each request, in the order given.
    typealias Send = @Sendable ([Request]) async -> [Result<Answer, SecureStoreError>]

    private struct Waiter {
        let id: UInt64
        let request: Request
        let continuation: CheckedContinuation<Turn, Never>
    }

    /// What a suspended call is told.
    private enum Turn {
        /// Fewer than `maxInFlight` statements are out: send this call's request now, alone.
        case sendNow
        /// The answer, from a batch sent by someone else.
        case answered(Result<Answer, SecureStoreError>)
    }

    private struct State {
        var waiting: [Waiter] = []
        var inFlight = 0
        var nextID: UInt64 = 0
        /// The linger under way, if any: cut short once a whole batch waits.
        var lingering: Task<Void, Never>?
        /// When the last statement of this kind went out.
        var lastSent: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let maxInFlight: Int
    private let maxBatch: Int
    private let linger: Duration
    private let busyWithin: Duration
    private let key: @Sendable (Request) -> Key
    /// The monotonic clock of `busyWithin` and the linger (a test's own, to control them).
    private let now: @Sendable () -> ContinuousClock.Instant
    /// Waits out a linger, or less when the task is cancelled (a test's own clock, to control it).
    private let sleep: @Sendable (Duration) async -> Void

    /// - Parameters:
    ///   - maxInFlight: The most statements of this kind out at once (at least 1).
    ///   - maxBatch: The most requests in one statement (at least 1).
    ///   - linger: How long a batch of calls that waited, two or more, waits for more before it goes out.
    ///   - busyWithin: A call made when nothing waits lingers as such a batch does if a statement of its kind went
    ///     out less than this long ago (`.zero`: never; needs a `linger`).
    ///   - key: What two requests must not share to go out together.
    ///   - now: The monotonic clock; `ContinuousClock`'s by default.
    ///   - sleep: Sleeps for a duration on that clock, returning early when the task is cancelled.
    init(
        maxInFlight: Int, maxBatch: Int, linger: Duration = .zero, busyWithin: Duration = .zero,
        key: @escaping @Sendable (Request) -> Key,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        sleep: @escaping @Sendable (Duration) async -> Void = { _ = try? await Task.sleep(for: $0) }
    ) {
        self.maxInFlight = max(1, maxInFlight)
        self.maxBatch = max(1, maxBatch)
        self.linger = linger
        self.busyWithin = linger > .zero ? busyWithin : .zero
        self.key = key
        self.now = now
        self.sleep = sleep
    }

    /// How many calls wait now, for tests and metrics.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Answers `request`, sending it alone now or with others later; `send` sends a batch (every caller passes the
    /// same function).
    func submit(_ request: Request, send: @escaping Send) async throws(SecureStoreError) -> Answer {
        let id = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        let turn = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
                let waiter = Waiter(id: id, request: request, continuation: continuation)
                let (immediate, full, lingers) = state.withLock { state -> (Turn?, Task<Void, Never>?, Bool) in
                    if Task.isCancelled { return (.answered(.failure(Self.cancelled)), nil, false) }
                    if state.inFlight < maxInFlight && state.waiting.isEmpty {
                        // The statement's slot is this call's either way: sent now, or after a linger.
                        state.inFlight += 1
                        let instant = now()
                        if let last = state.lastSent, instant - last < busyWithin {
                            state.waiting.append(waiter)
                            return (nil, nil, true)
                        }
                        state.lastSent = instant
                        return (.sendNow, nil, false)
                    }
                    state.waiting.append(waiter)
                    guard state.waiting.count >= maxBatch else { return (nil, nil, false) }
                    defer { state.lingering = nil }
                    return (nil, state.lingering, false)
                }
                // A whole batch waits: no reason to linger any longer.
                full?.cancel()
                if let immediate { continuation.resume(returning: immediate) }
                if lingers { sendBatch(lingering: true, send: send) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(returning: .answered(.failure(Self.cancelled)))
        }
        switch turn {
        case .answered(let result):
            return try result.get()
        case .sendNow:
            let result = await send([request]).first ?? .failure(Self.unanswered)
            // A caller cancelled meanwhile failed alone: that says nothing about the database.
            finished(failing: Task.isCancelled ? nil : result.failureCode, send: send)
            return try result.get()
        }
    }

    /// A statement came back: sends the next batch, if calls wait, in a task of its own; else one fewer is out.
    /// After `failing` `.unavailable`, the waiting calls are answered with that failure instead.
    private func finished(failing code: SecureStoreError.Code?, send: @escaping Send) {
        if code == .unavailable {
            let dropped = state.withLock { state -> [Waiter] in
                state.inFlight -= 1
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            for waiter in dropped {
                waiter.continuation.resume(returning: .answered(.failure(Self.notSent)))
            }
            return
        }
        let lingers = state.withLock { state -> Bool? in
            if state.waiting.isEmpty {
                state.inFlight -= 1
                return nil
            }
            return linger > .zero && state.waiting.count >= 2 && state.waiting.count < maxBatch
        }
        guard let lingers else { return }
        sendBatch(lingering: lingers, send: send)
    }

    /// Sends the calls that wait as one batch, in a task of its own, after a linger if `lingering`; the caller has
    /// taken the statement's slot for it.
    private func sendBatch(lingering lingers: Bool, send: @escaping Send) {
        Task { [self] in
            // The statement's slot stays taken meanwhile: calls that come now wait and join this batch, and the
            // one that makes it whole ends the linger (the sleep is a task of its own, so that ending it early
            // never cancels the statement).
            if lingers {
                let sleeper = Task { [sleep, linger] in await sleep(linger) }
                let full = state.withLock { state in
                    state.lingering = sleeper
                    return state.waiting.count >= maxBatch
                }
                if full { sleeper.cancel() }
                await sleeper.value
                state.withLock { $0.lingering = nil }
            }
            let batch = state.withLock { state in
                let batch = nextBatch(&state.waiting)
                if !batch.isEmpty { state.lastSent = now() }
                return batch
            }
            // Every waiting call was cancelled during the linger: give the slot back.
            guard !batch.isEmpty else { return finished(failing: nil, send: send) }
            let results = await send(batch.map(\.request))
            var failure: SecureStoreError.Code?
            for (index, waiter) in batch.enumerated() {
                let result = index < results.count ? results[index] : .failure(Self.unanswered)
                if result.failureCode == .unavailable { failure = .unavailable }
                waiter.continuation.resume(returning: .answered(result))
            }
            finished(failing: failure, send: send)
        }
    }

    /// Takes up to `maxBatch` waiting calls, oldest first, no two with the same key, out of `waiting`.
    private func nextBatch(_ waiting: inout [Waiter]) -> [Waiter] {
        guard !waiting.isEmpty else { return [] }
        var batch: [Waiter] = []
        var keys = Set<Key>()
        var left: [Waiter] = []
        for waiter in waiting {
            if batch.count < maxBatch, keys.insert(key(waiter.request)).inserted {
                batch.append(waiter)
            } else {
                left.append(waiter)
            }
        }
        waiting = left
        return batch
    }

    private static var cancelled: SecureStoreError {
        SecureStoreError(
            code: .unavailable,
            message: "the call was cancelled while it waited to be sent; keep the session and "
                + "try again")
    }

    private static var notSent: SecureStoreError {
        SecureStoreError(
            code: .unavailable,
            message: "the database did not answer the statement sent before this call's, so it "
                + "was not sent; keep the session and try again")
    }

    private static var unanswered: SecureStoreError {
        SecureStoreError(code: .unavailable, message: "a batched statement returned no answer for this call; try again")
    }
}

extension Result where Failure == SecureStoreError {
    /// The failure's code, or `nil` for a success.
    fileprivate var failureCode: SecureStoreError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
