import Synchronization
import Testing

@testable import SessionKitSupport

/// The one sleeping task that times every store call's and every wait's deadline.
@Suite("Deadlines")
struct DeadlinesTests {
    /// What ran, and when, from the test's start.
    private final class Log: Sendable {
        let start = ContinuousClock.now
        private let entries = Mutex<[(String, Duration)]>([])

        func record(_ name: String) { entries.withLock { $0.append((name, ContinuousClock.now - start)) } }
        var names: [String] { entries.withLock { $0.map(\.0) } }
        func time(of name: String) -> Duration? { entries.withLock { $0.first { $0.0 == name }?.1 } }

        func wait(for count: Int, upTo limit: Duration = .seconds(20)) async {
            let end = ContinuousClock.now + limit
            while entries.withLock({ $0.count }) < count, ContinuousClock.now < end {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    @Test(
        "each action runs once its limit has passed, in deadline order; an earlier one scheduled last wakes the sleeper"
    )
    func order() async throws {
        // A sleeper that would sleep all the way to the first deadline: only a new one can wake it earlier.
        let deadlines = Deadlines(resolution: .milliseconds(5), longestSleep: .seconds(60))
        let log = Log()
        let start = ContinuousClock.now
        deadlines.schedule(after: .milliseconds(1500)) { log.record("late") }
        let lateWake = try #require(deadlines.nextWake)
        #expect(lateWake >= start + .milliseconds(1500))
        deadlines.schedule(after: .milliseconds(800)) { log.record("middle") }
        // Earlier than the planned wake: the sleeper now wakes for this one, not at 800 ms.
        deadlines.schedule(after: .milliseconds(50)) { log.record("early") }
        #expect(try #require(deadlines.nextWake) <= ContinuousClock.now + .milliseconds(50))
        await log.wait(for: 3, upTo: .seconds(60))
        #expect(log.names == ["early", "middle", "late"])
        for (name, limit) in [("early", 50), ("middle", 800), ("late", 1500)] {
            // At its deadline, never before. How late depends on this machine's load (tests run in parallel here,
            // and a starved process wakes late): the wake itself is checked above.
            let time = try #require(log.time(of: name))
            #expect(time >= .milliseconds(limit), "\(name) ran at \(time)")
        }
        #expect(deadlines.nextWake == nil, "the sleeper ends with the last deadline")
    }

    @Test("a cancelled action never runs, and the others still do")
    func cancelled() async {
        let deadlines = Deadlines(resolution: .milliseconds(5), longestSleep: .milliseconds(20))
        let log = Log()
        let cancelled = deadlines.schedule(after: .milliseconds(30)) { log.record("cancelled") }
        deadlines.schedule(after: .milliseconds(60)) { log.record("kept") }
        deadlines.cancel(cancelled)
        await log.wait(for: 1)
        try? await Task.sleep(for: .milliseconds(50))
        #expect(log.names == ["kept"])
    }

    @Test("the sleeping task ends with the last deadline and a new one starts for the next")
    func restarts() async {
        let deadlines = Deadlines(resolution: .milliseconds(5), longestSleep: .milliseconds(20))
        let log = Log()
        deadlines.schedule(after: .milliseconds(10)) { log.record("first") }
        await log.wait(for: 1)
        try? await Task.sleep(for: .milliseconds(50))
        deadlines.schedule(after: .milliseconds(10)) { log.record("second") }
        await log.wait(for: 2)
        #expect(log.names == ["first", "second"])
    }

    @Test("many deadlines scheduled and cancelled from many tasks: each kept one runs once, no cancelled one runs")
    func many() async {
        let deadlines = Deadlines(resolution: .milliseconds(5), longestSleep: .milliseconds(20))
        let log = Log()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<250 {
                        let name = "\(task).\(index)"
                        let token = deadlines.schedule(after: .milliseconds((task * 250 + index) % 97)) {
                            log.record(name)
                        }
                        if index.isMultiple(of: 2) { deadlines.cancel(token) }
                    }
                }
            }
        }
        await log.wait(for: 1000)
        try? await Task.sleep(for: .milliseconds(150))
        let names = log.names
        #expect(names.count == 1000)
        #expect(Set(names).count == 1000)
        #expect(names.allSatisfy { Int($0.split(separator: ".")[1])! % 2 == 1 })
    }

    @Test("deadlines cancelled long before their time do not pile up; a near one still runs at its time")
    func cancelledPileUp() async throws {
        let deadlines = Deadlines(resolution: .milliseconds(5), longestSleep: .milliseconds(20))
        let log = Log()
        let kept = deadlines.schedule(after: .seconds(600)) { log.record("far") }
        var most = 0
        for index in 0..<5000 {
            let token = deadlines.schedule(after: .seconds(300)) { log.record("cancelled \(index)") }
            deadlines.cancel(token)
            most = max(most, deadlines.queued.all)
        }
        #expect(most <= 2 * 1 + 1025, "the heap held \(most) deadlines for 1 live")
        #expect(deadlines.queued.live == 1)
        deadlines.schedule(after: .milliseconds(30)) { log.record("near") }
        await log.wait(for: 1)
        #expect(log.names == ["near"])
        #expect(try #require(log.time(of: "near")) >= .milliseconds(30))
        deadlines.cancel(kept)
        #expect(deadlines.queued.live == 0)
    }
}
