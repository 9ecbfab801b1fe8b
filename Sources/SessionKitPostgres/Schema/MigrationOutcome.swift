import SecureStore
import Synchronization

/// What ``PostgresSessionStore/Migrations/ready()`` waits for: the versions a run applied, or why it could not;
/// the first word counts. Any number of tasks wait, each until the outcome is known or it is cancelled.
final class MigrationOutcome: Sendable {
    private struct State {
        var result: Result<[Int], SecureStoreError>?
        var waiters: [UInt64: CheckedContinuation<[Int], any Error>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Records `result` and answers every waiter with it; ignored once an outcome is known.
    func finish(_ result: Result<[Int], SecureStoreError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<[Int], any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }

    /// The versions applied, once known; throws the failure, or `CancellationError` when the waiting task is
    /// cancelled first.
    func wait() async throws -> [Int] {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Int], any Error>) in
                let answer = state.withLock { state -> Result<[Int], any Error>? in
                    if let result = state.result { return result.mapError { $0 as any Error } }
                    // The cancellation handler sets the flag before it runs: a task cancelled before this point is
                    // answered here, one cancelled after finds its waiter below.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
