import SessionKitSupport
import Synchronization

/// Work whose result is waited for a limited time, as often as needed, and given up on at the deadline.
///
/// A database that stops answering (its processes frozen, a network partition) never fails a query: the
/// query just waits. Cancelling the waiting task does not help either, since a query already sent cannot be
/// taken back. So the caller is answered at the deadline, and the work is left to end by itself (its
/// connection is closed, which fails it); nothing blocks a thread meanwhile. The work hands its result to the
/// waiter itself and the deadline is an entry in ``Deadlines/shared``: a call that ends in time costs no timer
/// and no task beyond the work's own.
final class CallDeadline<T: Sendable>: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Result<T, any Error>?, Never>
        var token: Deadlines.Token?
    }

    private struct State {
        var result: Result<T, any Error>?
        var waiter: Waiter?
        var nextID: UInt64 = 0
    }

    private final class Outcome: Sendable {
        let state = Mutex(State())

        func finish(_ result: Result<T, any Error>) {
            let waiter = state.withLock { state -> Waiter? in
                state.result = result
                defer { state.waiter = nil }
                return state.waiter
            }
            if let token = waiter?.token { Deadlines.shared.cancel(token) }
            waiter?.continuation.resume(returning: result)
        }

        func expire(_ id: UInt64) {
            let waiter = state.withLock { state -> Waiter? in
                guard state.waiter?.id == id else { return nil }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.continuation.resume(returning: nil)
        }
    }

    private let outcome: Outcome
    private let task: Task<Void, Never>

    /// Starts `work`.
    init(_ work: @escaping @Sendable () async throws -> T) {
        let outcome = Outcome()
        self.outcome = outcome
        task = Task {
            do {
                outcome.finish(.success(try await work()))
            } catch {
                outcome.finish(.failure(error))
            }
        }
    }

    /// The work's result, or `nil` when it did not finish within `limit`; the work goes on, for the caller to wait
    /// again or ``cancel()``. One caller waits at a time. A cancelled caller cancels the work and gets its result
    /// (usually a cancellation error).
    func result(within limit: Duration) async -> Result<T, any Error>? {
        if let result = outcome.state.withLock({ $0.result }) { return result }
        guard limit > .zero else { return nil }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, Never>) in
                let outcome = outcome
                let waiting = outcome.state.withLock { state -> UInt64? in
                    guard state.result == nil else { return nil }
                    precondition(state.waiter == nil, "one caller waits for a call's result at a time")
                    state.nextID += 1
                    state.waiter = Waiter(id: state.nextID, continuation: continuation)
                    return state.nextID
                }
                guard let id = waiting else {
                    continuation.resume(returning: outcome.state.withLock { $0.result })
                    return
                }
                let token = Deadlines.shared.schedule(after: limit) { outcome.expire(id) }
                let stillWaiting = outcome.state.withLock { state -> Bool in
                    guard state.waiter?.id == id else { return false }
                    state.waiter?.token = token
                    return true
                }
                if !stillWaiting { Deadlines.shared.cancel(token) }
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Cancels the work; a caller waiting gets its result when it ends.
    func cancel() {
        task.cancel()
    }
}
