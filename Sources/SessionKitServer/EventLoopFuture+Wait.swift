import Dispatch
import NIOCore
import Synchronization

extension EventLoopFuture where Value: Sendable {
    /// Blocks the calling thread until the future completes or `limit` passes; `nil` when it timed out.
    ///
    /// NIO's `wait()` has no limit: a server that accepts the connection but never answers would block the
    /// caller for ever. The future goes on after a timeout; the caller decides what to do with its result
    /// (see `onLateSuccess`).
    func wait(atMost limit: Duration, onLateSuccess: @escaping @Sendable (Value) -> Void = { _ in }) throws -> Value? {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<(result: Result<Value, any Error>?, abandoned: Bool)>((nil, false))
        whenComplete { result in
            let abandoned = outcome.withLock { state in
                state.result = result
                return state.abandoned
            }
            if abandoned, case .success(let value) = result { onLateSuccess(value) }
            done.signal()
        }
        if done.wait(timeout: .now() + limit.dispatchInterval) == .timedOut {
            let result = outcome.withLock { state in
                if state.result == nil { state.abandoned = true }
                return state.result
            }
            guard let result else { return nil }
            return try result.get()
        }
        return try outcome.withLock { $0.result }!.get()
    }
}
