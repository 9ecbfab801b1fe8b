import Foundation
import Synchronization

/// Hands a row from an update's transaction to its caller and the caller's decision back, so that the
/// caller's transform runs in the caller's task (it need not be `Sendable`) while the transaction, in a
/// task of its own under the call's deadline, holds the row's locks.
final class UpdateExchange: Sendable {
    /// What the caller decided.
    enum Decision: Sendable {
        /// Write this value (`nil` deletes the item).
        case write(Data?)
        /// The transform threw: roll back.
        case abandon
    }

    private struct State {
        var stored: Result<Data?, any Error>?
        var storedWaiter: CheckedContinuation<Data?, any Error>?
        var decision: Decision?
        var decisionWaiter: CheckedContinuation<Decision, Never>?
    }

    private let state = Mutex(State())

    /// The caller: waits for the stored value, or the transaction's failure.
    func storedValue() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Data?, any Error>? in
                if let stored = state.stored { return stored }
                state.storedWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The transaction: hands the stored value over and waits for the caller's decision.
    func handOver(_ value: Data?) async -> Decision {
        deliver(.success(value))
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Decision? in
                if let decision = state.decision { return decision }
                state.decisionWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The call failed (or gave up): the caller is told, and a transaction still waiting for a decision rolls
    /// back.
    func fail(_ error: any Error) {
        deliver(.failure(error))
        decide(.abandon)
    }

    /// The caller: write `value` (`nil` deletes the item).
    func write(_ value: Data?) {
        decide(.write(value))
    }

    /// The caller: the transform threw; roll back.
    func abandon() {
        decide(.abandon)
    }

    private func deliver(_ result: Result<Data?, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard state.stored == nil else { return nil }
            state.stored = result
            return state.storedWaiter.take()
        }
        waiter?.resume(with: result)
    }

    private func decide(_ decision: Decision) {
        let waiter = state.withLock { state -> CheckedContinuation<Decision, Never>? in
            guard state.decision == nil else { return nil }
            state.decision = decision
            return state.decisionWaiter.take()
        }
        waiter?.resume(returning: decision)
    }
}
