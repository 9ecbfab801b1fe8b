import SecureStore
import Synchronization

/// Finds out why the pool hands out no connection, once for all the calls that wait: a single connection of the
/// store's own, outside the pool, whose answer every waiting call shares and later calls reuse for a moment.
///
/// Each call that waited past the acquire timeout used to open its own probe. When the pool is only busy (a
/// storm of renewals on two cores), a hundred waiting calls opened a hundred connections at once, each with a TLS
/// handshake and a SCRAM exchange on both sides: the load that kept the pool busy grew, and calls ran into their
/// deadlines (`Benchmarks/server.sh`: a few calls in 40,000). Now a store runs one probe at a time.
///
/// The answer's lifetime and each call's deadline are measured on an injected monotonic clock (`now`, `sleep`), so
/// that a test controls them instead of racing a loaded machine.
final class ConnectionProbe: Sendable {
    /// How long an answer stands for later calls.
    static let answerLifetime = Duration.seconds(1)

    /// A call waiting for the running probe, and the task that ends its wait at its deadline.
    private struct Waiter {
        let continuation: CheckedContinuation<SecureStoreError?, Never>
        var deadline: Task<Void, Never>?
    }

    private struct State {
        var running = false
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var answer: (failure: SecureStoreError?, at: ContinuousClock.Instant)?
    }

    /// What a call does, decided under the lock.
    private enum Step {
        /// Return this at once: an answer that stands, or `nil` for a caller already cancelled.
        case answered(SecureStoreError?)
        /// Wait for the running probe, starting it first when none runs.
        case waits(startsProbe: Bool)
    }

    private let state = Mutex(State())
    /// The monotonic clock of ``answerLifetime`` and of the calls' deadlines.
    private let now: @Sendable () -> ContinuousClock.Instant
    /// Sleeps for a duration on that clock, returning early when the task is cancelled.
    private let sleep: @Sendable (Duration) async -> Void

    /// - Parameters:
    ///   - now: The monotonic clock; `ContinuousClock`'s by default.
    ///   - sleep: Sleeps for a duration on that clock, returning early when the task is cancelled.
    init(
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        sleep: @escaping @Sendable (Duration) async -> Void = { _ = try? await Task.sleep(for: $0) }
    ) {
        self.now = now
        self.sleep = sleep
    }

    /// What the current probe finds, waited for at most `limit`: the connection's error, or `nil` when it connects,
    /// gets no answer in time, or `limit` passes. `probe` runs only when no probe is running and no answer of the
    /// last ``answerLifetime`` stands. A caller that gives up (its deadline, its cancellation) leaves the probe
    /// running for the others.
    func failure(
        within limit: Duration, probe: @escaping @Sendable () async -> SecureStoreError?
    ) async -> SecureStoreError? {
        let id = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SecureStoreError?, Never>) in
                let step = state.withLock { state -> Step in
                    if let answer = state.answer, now() - answer.at < Self.answerLifetime {
                        return .answered(answer.failure)
                    }
                    if Task.isCancelled { return .answered(nil) }
                    state.waiters[id] = Waiter(continuation: continuation)
                    defer { state.running = true }
                    return .waits(startsProbe: !state.running)
                }
                switch step {
                case .answered(let failure):
                    continuation.resume(returning: failure)
                case .waits(let startsProbe):
                    if startsProbe {
                        Task { [weak self] in
                            let failure = await probe()
                            self?.answer(failure)
                        }
                    }
                    let deadline = Task { [weak self, sleep] in
                        await sleep(limit)
                        self?.resume(id, with: nil)
                    }
                    let waits = state.withLock { state -> Bool in
                        guard state.waiters[id] != nil else { return false }
                        state.waiters[id]?.deadline = deadline
                        return true
                    }
                    if !waits { deadline.cancel() }
                }
            }
        } onCancel: {
            resume(id, with: nil)
        }
    }

    /// Keeps the probe's answer and gives it to every call that waits.
    private func answer(_ failure: SecureStoreError?) {
        let waiters = state.withLock { state -> [Waiter] in
            state.running = false
            state.answer = (failure, now())
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.deadline?.cancel()
            waiter.continuation.resume(returning: failure)
        }
    }

    /// Ends one call's wait (its deadline, its cancellation); the probe goes on for the others.
    private func resume(_ id: UInt64, with failure: SecureStoreError?) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.deadline?.cancel()
        waiter.continuation.resume(returning: failure)
    }
}
