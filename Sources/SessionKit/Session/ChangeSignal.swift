import Synchronization

/// Wakes tasks that wait for a session's record to change in the store: a waiter sleeps until ``signal()``
/// or its time limit, whichever comes first, so that a store that announces changes (PostgreSQL's NOTIFY)
/// ends the wait at once and a store that does not is polled.
final class ChangeSignal: Sendable {
    private struct State {
        var nextID = 0
        /// Starts as `Dictionary()`, not `[:]`: the literal builds storage for its type, which makes the runtime
        /// check `Never: Error` at start-up, a scan of every conformance in a binary like `sessionctl`'s.
        var waiters = [Int: CheckedContinuation<Void, Never>]()
        /// Waiters that have an id but have not registered yet.
        var arriving: Set<Int> = []
        /// Arriving waiters cancelled before they registered: they must not wait at all.
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
        for waiter in waiters { waiter.resume() }
    }

    /// Returns after the next ``signal()`` or after `limit`, whichever comes first, or when the task is
    /// cancelled.
    ///
    /// - Returns: Whether a signal ended the wait.
    @discardableResult
    func wait(upTo limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            group.addTask {
                await self.nextSignal()
                return true
            }
            let signalled = await group.next() ?? false
            group.cancelAll()
            return signalled && !Task.isCancelled
        }
    }

    private func nextSignal() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.arriving.insert(state.nextID)
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    state.arriving.remove(id)
                    if state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                // Not registered yet: tell the registration not to wait. Already woken: nothing to do.
                if state.arriving.contains(id) { state.cancelled.insert(id) }
                return nil
            }
            waiter?.resume()
        }
    }
}
