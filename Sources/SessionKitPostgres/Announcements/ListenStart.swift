import SecureStore
import Synchronization

/// Tells ``PostgresSessionStore/changes()`` when its listener is in place, or why it is not, at most after
/// a time limit.
final class ListenStart: Sendable {
    private struct State {
        var outcome: SecureStoreError??
        var waiter: CheckedContinuation<SecureStoreError?, Never>?
    }

    private let state = Mutex(State())

    /// The listener started (`nil`) or failed; the first word counts.
    func finish(_ failure: SecureStoreError?) {
        let waiter = state.withLock { state -> CheckedContinuation<SecureStoreError?, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = .some(failure)
            return state.waiter.take()
        }
        waiter?.resume(returning: failure)
    }

    /// `nil` once the listener started; its failure, or a timeout after `limit`.
    func wait(upTo limit: Duration) async -> SecureStoreError? {
        let timer = Task {
            try? await Task.sleep(for: limit)
            finish(
                SecureStoreError(
                    code: .unavailable,
                    message: "PostgreSQL did not answer within \(limit) while starting to listen for changes; "
                        + "try again"))
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> SecureStoreError?? in
                if let outcome = state.outcome { return .some(outcome) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
