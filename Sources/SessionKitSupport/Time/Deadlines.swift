import Synchronization

/// Runs actions at deadlines, all of them timed by one sleeping task rather than a timer each.
///
/// Every store call and every wait for a change has a deadline, and nearly all of them end long before it. A
/// `Task.sleep` per deadline costs a task, a timer armed in Dispatch's manager thread (a thread switch) and a
/// cancellation; in a storm of renewals that was about 7% of a server's CPU. Here a deadline is an entry in a
/// table, and one task sleeps until the earliest entry but never longer than ``longestSleep`` while any is
/// left: a new deadline that lies beyond the next wake (most do: calls share a limit, and a wake is never far)
/// costs a table entry and nothing else; only one earlier than that starts a new sleeper. An action runs at its
/// deadline or up to ``resolution`` after it.
///
/// The entries are kept in a heap by deadline as well: a wake takes the due ones off its top and never walks the
/// thousands of pending ones a storm keeps (a walk and a copy of the table per wake was 0.7% of an eight-instance
/// storm's CPU).
package final class Deadlines: Sendable {
    /// The deadlines of this process.
    package static let shared = Deadlines(resolution: .milliseconds(5), longestSleep: .milliseconds(20))

    /// A scheduled action, for ``cancel(_:)``.
    package struct Token: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        let deadline: ContinuousClock.Instant
        let action: @Sendable () -> Void
    }

    private struct State {
        var nextID: UInt64 = 0
        /// Starts as `Dictionary()`, not `[:]` (see SessionKit's `ChangeSignal`: a literal makes the runtime check a
        /// conformance at start-up).
        var entries = [UInt64: Entry]()
        /// Every entry's deadline, earliest first; a cancelled entry's stays until it comes to the top (or the
        /// queue is rebuilt from `entries`), so a wake costs O(log n) per entry it meets, not a walk of them all.
        var queue = DeadlineQueue()
        /// When the sleeping task wakes next; `nil` when none sleeps.
        var wake: ContinuousClock.Instant?
        /// The sleeping task's number: a task that finds another number on waking was superseded and ends.
        var generation: UInt64 = 0
    }

    /// How late an action may run: a deadline this close after the planned wake does not wake the sleeper earlier.
    package let resolution: Duration
    /// The longest the sleeping task sleeps while deadlines are pending: the wake rate of a busy process (50 a
    /// second for 20 ms), and what keeps the next wake near enough that new deadlines rarely come before it.
    package let longestSleep: Duration
    private let state = Mutex(State())

    /// A table of deadlines of its own, for tests; the process's deadlines are ``shared``.
    package init(resolution: Duration, longestSleep: Duration) {
        self.resolution = resolution
        self.longestSleep = max(resolution, longestSleep)
    }

    /// Runs `action` once `limit` has passed, unless ``cancel(_:)`` comes first.
    @discardableResult
    package func schedule(after limit: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        let now = ContinuousClock.now
        let deadline = now.advanced(by: limit)
        let wake = min(deadline, now.advanced(by: longestSleep))
        let (token, start) = state.withLock { state -> (Token, UInt64?) in
            state.nextID += 1
            state.entries[state.nextID] = Entry(deadline: deadline, action: action)
            state.queue.insert(deadline, id: state.nextID)
            if let planned = state.wake, deadline + resolution > planned { return (Token(id: state.nextID), nil) }
            state.wake = wake
            state.generation += 1
            return (Token(id: state.nextID), state.generation)
        }
        if let start {
            // Detached: it serves the whole process, not the caller (whose task-local values it would carry).
            Task.detached { await self.sleep(until: wake, generation: start) }
        }
        return token
    }

    /// When the sleeping task wakes next, `nil` when none sleeps: for tests.
    var nextWake: ContinuousClock.Instant? { state.withLock { $0.wake } }

    /// How many deadlines the heap holds, cancelled ones included, and how many are live: for tests.
    var queued: (all: Int, live: Int) { state.withLock { ($0.queue.count, $0.entries.count) } }

    /// Forgets a scheduled action; nothing happens when it ran already.
    package func cancel(_ token: Token) {
        state.withLock { state in
            guard state.entries.removeValue(forKey: token.id) != nil else { return }
            // Most deadlines are cancelled long before they fall due: past a point, the queue is rebuilt from the
            // entries left rather than carrying the cancelled ones until their time.
            if state.queue.count > 2 * state.entries.count + 1024 {
                state.queue = DeadlineQueue(state.entries.lazy.map { ($0.value.deadline, $0.key) })
            }
        }
    }

    /// The sleeping task: runs what is due each time it wakes, then sleeps until the earliest entry left (at most
    /// ``longestSleep``), or ends when none is left or a newer task took over.
    private func sleep(until deadline: ContinuousClock.Instant, generation: UInt64) async {
        var wake = deadline
        while true {
            try? await Task.sleep(until: wake, tolerance: resolution, clock: .continuous)
            let now = ContinuousClock.now
            let (due, next) = state.withLock { state -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
                guard state.generation == generation else { return ([], nil) }
                // In deadline order, also when a starved process wakes late to several at once; cancelled
                // entries met on the way are dropped, so that the earliest left is a live one.
                var due: [@Sendable () -> Void] = []
                while let (deadline, id) = state.queue.first {
                    let live = state.entries[id] != nil
                    guard deadline <= now || !live else { break }
                    state.queue.removeFirst()
                    if live, let entry = state.entries.removeValue(forKey: id) { due.append(entry.action) }
                }
                state.wake = state.queue.first.map { min($0.deadline, now.advanced(by: longestSleep)) }
                return (due, state.wake)
            }
            for action in due { action() }
            guard let next else { return }
            wake = next
        }
    }
}
