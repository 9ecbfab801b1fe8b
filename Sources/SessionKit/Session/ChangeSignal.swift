import SessionKitSupport
import Synchronization

/// Wakes tasks that wait for a session's record to change in the store: a waiter sleeps until ``signal()``
/// or its time limit, whichever comes first, so that a store that announces changes (PostgreSQL's NOTIFY)
/// ends the wait at once and a store that does not is polled.
final class ChangeSignal: Sendable {
    private struct Waiter {
        let continuation: CheckedContinuation<Bool, Never>
        var deadline: Deadlines.Token?
    }

    private struct State {
        var nextID = 0
        /// Starts as `Dictionary()`, not `[:]`: the literal builds storage for its type, which makes the runtime
        /// check `Never: Error` at start-up, a scan of every conformance in a binary like `sessionctl`'s.
        var waiters = [Int: Waiter]()
        /// Waiters that have an id but have not registered yet.
        var arriving: Set<Int> = []
        /// Waiters cancelled before they registered: they must not wait at all.
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())
    private let signalled = Atomic<Bool>(false)

    /// Whether ``signal()`` was ever called: the store announces changes, so waiters may poll less often.
    var hasSignalled: Bool { signalled.load(ordering: .relaxed) }

    /// Wakes every task waiting now.
    func signal() {
        signalled.store(true, ordering: .relaxed)
        let waiters = state.withLock { state in
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            if let deadline = waiter.deadline { Deadlines.shared.cancel(deadline) }
            waiter.continuation.resume(returning: true)
        }
    }

    /// Returns after the next ``signal()`` or after `limit`, whichever comes first, or when the task is
    /// cancelled. The limit is kept by SessionKitSupport's `Deadlines`: one sleeping task for all waits, not a timer
    /// each.
    ///
    /// - Returns: Whether a signal ended the wait.
    @discardableResult
    func wait(upTo limit: Duration) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.arriving.insert(state.nextID)
            return state.nextID
        }
        let signalled = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let waits = state.withLock { state in
                    state.arriving.remove(id)
                    if state.cancelled.remove(id) != nil { return false }
                    state.waiters[id] = Waiter(continuation: continuation)
                    return true
                }
                guard waits else { return continuation.resume(returning: false) }
                let deadline = Deadlines.shared.schedule(after: limit) { [self] in end(id, signalled: false) }
                let registered = state.withLock { state in
                    guard state.waiters[id] != nil else { return false }
                    state.waiters[id]?.deadline = deadline
                    return true
                }
                if !registered { Deadlines.shared.cancel(deadline) }
            }
        } onCancel: {
            if !end(id, signalled: false) {
                // Not registered yet: the registration must not wait. Already woken: nothing to do.
                state.withLock { state in
                    if state.arriving.contains(id) { state.cancelled.insert(id) }
                }
            }
        }
        return signalled && !Task.isCancelled
    }

    /// Ends the wait of `id` if it is still waiting; returns whether it was.
    @discardableResult
    private func end(_ id: Int, signalled: Bool) -> Bool {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return false }
        if let deadline = waiter.deadline { Deadlines.shared.cancel(deadline) }
        waiter.continuation.resume(returning: signalled)
        return true
    }
}
