import SecureStore
import Synchronization

/// Finds out why the pool hands out no connection, once for all the calls that wait: a single connection of the
/// store's own, outside the pool, whose answer every waiting call shares and later calls reuse for a moment.
///
/// Each call that waited past the acquire timeout used to open its own probe. When the pool is only busy (a
/// storm of renewals on two cores), a hundred waiting calls opened a hundred connections at once, each with a TLS
/// handshake and a SCRAM exchange on both sides: the load that kept the pool busy grew, and calls ran into their
/// deadlines (`Benchmarks/server.sh`: a few calls in 40,000). Now a store runs one probe at a time.
final class ConnectionProbe: Sendable {
    /// How long an answer stands for later calls.
    static let answerLifetime = Duration.seconds(1)

    private struct State {
        var running: Task<SecureStoreError?, any Error>?
        var answer: (failure: SecureStoreError?, at: ContinuousClock.Instant)?
    }

    private let state = Mutex(State())

    /// What the current probe finds, waited for at most `limit`: the connection's error, or `nil` when it connects,
    /// gets no answer in time, or `limit` passes. `probe` runs only when no probe is running and no answer of the
    /// last ``answerLifetime`` stands.
    func failure(
        within limit: Duration, probe: @escaping @Sendable () async -> SecureStoreError?
    ) async -> SecureStoreError? {
        let now = ContinuousClock.now
        let shared: Task<SecureStoreError?, any Error>? = state.withLock { state in
            if let answer = state.answer, now - answer.at < Self.answerLifetime { return nil }
            if let running = state.running { return running }
            let running = Task<SecureStoreError?, any Error> { [weak self] in
                let failure = await probe()
                self?.state.withLock { state in
                    state.running = nil
                    state.answer = (failure, .now)
                }
                return failure
            }
            state.running = running
            return running
        }
        guard let shared else { return state.withLock { $0.answer?.failure } }
        // A caller that gives up (its deadline, its cancellation) leaves the probe to the others.
        let mine = CallDeadline { try await shared.value }
        guard case .success(let failure) = await mine.result(within: limit) else { return nil }
        return failure
    }
}
