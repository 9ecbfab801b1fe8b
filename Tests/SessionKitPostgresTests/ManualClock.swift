import Synchronization
import Testing

/// A monotonic clock that moves only when a test says so, for code that takes `now` and `sleep` closures: a sleeper
/// wakes when ``advance(by:)`` passes its deadline, or at once when its task is cancelled.
final class ManualClock: Sendable {
    private struct Sleeper {
        let deadline: Duration
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var elapsed = Duration.zero
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }

    private let start = ContinuousClock.now
    private let state = Mutex(State())

    /// The clock's time.
    var now: ContinuousClock.Instant { start + state.withLock { $0.elapsed } }

    /// How many sleep now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Sleeps until the clock has moved `duration` from now, or the task is cancelled.
    func sleep(for duration: Duration) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let due = state.withLock { state -> Bool in
                    let deadline = state.elapsed + duration
                    guard deadline > state.elapsed, !Task.isCancelled else { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if due { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Waits (in real time) until at least `count` tasks sleep on the clock: how a test knows that its calls reached
    /// their waits before it moves the clock. Only a test whose tasks never get there fails, after 30 s.
    func untilSleeping(_ count: Int) async throws {
        let start = ContinuousClock.now
        while sleeperCount < count {
            try #require(ContinuousClock.now - start < .seconds(30), "\(sleeperCount) of \(count) sleep on the clock")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Moves the clock `duration` on and wakes the sleepers whose time has come.
    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.elapsed += duration
            let due = state.sleepers.filter { $0.value.deadline <= state.elapsed }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}
