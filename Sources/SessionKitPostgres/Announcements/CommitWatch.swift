import SessionKitSupport
import Synchronization

/// Confirms the commit of this store's announced writes by their own announcements, saving the statement that
/// would otherwise confirm each one (``PostgresSessionStore/executeCommitted(_:_:wrote:)``).
///
/// PostgreSQL delivers a `NOTIFY` only once its transaction has committed, and only to connections that were
/// listening when it did. So while one of this store's ``PostgresSessionStore/changes()`` listeners is up, a write
/// that announces itself (a conditional write with its generation) is committed when its own announcement comes
/// back. A writer asks for a ``Ticket`` before it sends the statement, then waits for its generation. The wait
/// says "unknown" when a listener ends (it may have missed the announcement) or after ``patience``; the writer
/// then confirms with a statement on its connection, as it does when no listener is up.
final class CommitWatch: Sendable {
    /// A writer's registration for one key, taken before its statement is sent.
    struct Ticket: Sendable {
        fileprivate let digest: String
        fileprivate let id: UInt64
        /// How many listeners had ended when the ticket was taken.
        fileprivate let endings: Int
    }

    /// How long a writer waits for its announcement before it confirms with a statement instead. A committed
    /// write's announcement follows its answer by about a round trip; a write that was never committed (its
    /// connection lost between the answer and the commit) is never announced.
    let patience: Duration

    private struct Waiter {
        let generation: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct Watch {
        var tickets: Set<UInt64> = []
        var seen: Set<UInt64> = []
        var waiters: [UInt64: Waiter] = [:]
        /// Tickets whose patience ran out before their writer began to wait.
        var expired: Set<UInt64> = []
    }

    private struct State {
        var listeners = 0
        var endings = 0
        var watches: [String: Watch] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    init(patience: Duration = .seconds(1)) {
        self.patience = patience
    }

    /// A listener is up: writes committed from now on reach it.
    func listenerStarted() {
        state.withLock { $0.listeners += 1 }
    }

    /// A listener ended: every writer waiting now confirms with a statement (its announcement may be lost).
    func listenerEnded() {
        let released = state.withLock { state in
            state.listeners -= 1
            state.endings += 1
            var released: [Waiter] = []
            for (digest, watch) in state.watches where !watch.waiters.isEmpty {
                released.append(contentsOf: watch.waiters.values)
                state.watches[digest]?.waiters.removeAll()
            }
            return released
        }
        for waiter in released { waiter.continuation.resume(returning: false) }
    }

    /// A ticket for a write of the item with key digest `digest` (lower-case hex), or `nil` when no listener is
    /// up. Call ``finish(_:)`` with it once the write is done, however it ended.
    func expect(digest: String) -> Ticket? {
        state.withLock { state in
            guard state.listeners > 0 else { return nil }
            state.nextID += 1
            state.watches[digest, default: Watch()].tickets.insert(state.nextID)
            return Ticket(digest: digest, id: state.nextID, endings: state.endings)
        }
    }

    /// This store's write of `digest` at `generation` was announced, so committed.
    func announced(digest: String, generation: UInt64) {
        let confirmed = state.withLock { state -> [Waiter] in
            guard var watch = state.watches[digest] else { return [] }
            watch.seen.insert(generation)
            let confirmed = watch.waiters.filter { $0.value.generation == generation }
            for id in confirmed.keys { watch.waiters[id] = nil }
            state.watches[digest] = watch
            return Array(confirmed.values)
        }
        for waiter in confirmed { waiter.continuation.resume(returning: true) }
    }

    /// Whether the write of `ticket` that made `generation` was announced: `true` once it is, `false` when a
    /// listener ended since the ticket was taken (the one that would have heard it may be gone, and a newer one
    /// may have started after the commit) or ``patience`` ran out.
    func committed(_ ticket: Ticket, generation: UInt64) async -> Bool {
        let deadline = Deadlines.shared.schedule(after: patience) { [self] in giveUp(ticket) }
        defer { Deadlines.shared.cancel(deadline) }
        return await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLock { state in
                guard var watch = state.watches[ticket.digest] else { return false }
                if watch.seen.contains(generation) { return true }
                guard state.endings == ticket.endings, !watch.expired.contains(ticket.id) else { return false }
                watch.waiters[ticket.id] = Waiter(generation: generation, continuation: continuation)
                state.watches[ticket.digest] = watch
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Ends `ticket`: the write is done, or failed.
    func finish(_ ticket: Ticket) {
        let waiter = state.withLock { state -> Waiter? in
            guard var watch = state.watches[ticket.digest] else { return nil }
            watch.tickets.remove(ticket.id)
            watch.expired.remove(ticket.id)
            let waiter = watch.waiters.removeValue(forKey: ticket.id)
            state.watches[ticket.digest] = watch.tickets.isEmpty ? nil : watch
            return waiter
        }
        waiter?.continuation.resume(returning: false)
    }

    /// How many keys have tickets out: for tests that check nothing is left behind.
    var watchedKeyCount: Int { state.withLock { $0.watches.count } }

    /// Ends the patience of `ticket`'s wait, or of the wait it is about to begin.
    func giveUp(_ ticket: Ticket) {
        let waiter = state.withLock { state -> Waiter? in
            guard var watch = state.watches[ticket.digest] else { return nil }
            let waiter = watch.waiters.removeValue(forKey: ticket.id)
            if waiter == nil { watch.expired.insert(ticket.id) }  // its writer has not begun to wait yet
            state.watches[ticket.digest] = watch
            return waiter
        }
        waiter?.continuation.resume(returning: false)
    }
}
