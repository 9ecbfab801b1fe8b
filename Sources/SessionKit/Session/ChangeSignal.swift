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
        /// Signals so far (``ChangeSignal/epoch``).
        var epoch = 0
    }

    /// What a waiter found when it came to register.
    private enum Registration {
        case waits, cancelled, signalledSince
    }

    private let state = Mutex(State())
    private let signalled = Atomic<Bool>(false)

    /// Whether ``signal()`` was ever called: the store announces changes, so waiters may poll less often.
    var hasSignalled: Bool { signalled.load(ordering: .relaxed) }

    /// The count of signals so far. A caller that looks at what a signal would bring (the record held) and then
    /// waits reads this first and passes it to ``wait(upTo:unlessSignalledSince:)``: a signal that comes between
    /// the look and the wait's start then ends the wait at once, where it would otherwise be lost and the wait
    /// would last its whole limit (a second, for a manager that follows a store's announcements).
    var epoch: Int { state.withLock { $0.epoch } }

    /// Wakes every task waiting now.
    func signal() {
        signalled.store(true, ordering: .relaxed)
        let waiters = state.withLock { state in
            state.epoch &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            if let deadline = waiter.deadline { Deadlines.shared.cancel(deadline) }
            waiter.continuation.resume(returning: true)
        }
    }

    /// Returns after the next ``signal()`` or after `limit`, whichever comes first, or when the task is
    /// cancelled; at once, signalled, when a signal came since `epoch` (``epoch``, read before the caller last
    /// looked). The limit is kept by SessionKitSupport's `Deadlines`: one sleeping task for all waits, not a timer
    /// each.
    ///
    /// - Returns: Whether a signal ended the wait.
    @discardableResult
    func wait(upTo limit: Duration, unlessSignalledSince epoch: Int? = nil) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.arriving.insert(state.nextID)
            return state.nextID
        }
        let signalled = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let registration = state.withLock { state -> Registration in
                    state.arriving.remove(id)
                    if state.cancelled.remove(id) != nil { return .cancelled }
                    if let epoch, state.epoch != epoch { return .signalledSince }
                    state.waiters[id] = Waiter(continuation: continuation)
                    return .waits
                }
                switch registration {
                case .cancelled: return continuation.resume(returning: false)
                case .signalledSince: return continuation.resume(returning: true)
                case .waits: break
                }
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
