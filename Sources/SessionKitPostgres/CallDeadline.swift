import Synchronization

/// Waits for a task's result for a limited time, and returns without it when the time is up.
///
/// A database that stops answering (its processes frozen, a network partition) never fails a query: the
/// query just waits. Cancelling the waiting task does not help either, since a query already sent cannot be
/// taken back. So the caller is answered at the deadline, and the task is left to end by itself (its
/// connection is closed, which fails it); nothing blocks a thread meanwhile.
enum CallDeadline {
    /// The task's result, or `nil` when it did not finish within `limit`; the task goes on, for the caller to
    /// wait again or cancel. A cancelled caller cancels the task and gets its result (usually a cancellation
    /// error).
    static func result<T: Sendable>(of work: Task<T, any Error>, within limit: Duration) async -> Result<T, any Error>?
    {
        let race = Race<T>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>?, Never>) in
                race.start(continuation)
                let timer = Task {
                    try? await Task.sleep(for: limit)
                    race.finish(nil)
                }
                Task {
                    let result = await work.result
                    timer.cancel()
                    race.finish(result)
                }
            }
        } onCancel: {
            work.cancel()
        }
    }

    /// Resumes a continuation once, with whichever answer comes first.
    private final class Race<T: Sendable>: Sendable {
        private let continuation = Mutex<CheckedContinuation<Result<T, any Error>?, Never>?>(nil)

        func start(_ continuation: CheckedContinuation<Result<T, any Error>?, Never>) {
            self.continuation.withLock { $0 = continuation }
        }

        /// Resumes with `result` if nothing did yet; returns whether this call did.
        @discardableResult
        func finish(_ result: Result<T, any Error>?) -> Bool {
            guard let continuation = continuation.withLock({ $0.take() }) else { return false }
            continuation.resume(returning: result)
            return true
        }
    }
}
