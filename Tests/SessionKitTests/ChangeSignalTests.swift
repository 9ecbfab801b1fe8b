import Testing

@testable import SessionKit

/// The wake-up that ends a wait for another instance's renewal as soon as the store announces a change.
@Suite("Change signal")
struct ChangeSignalTests {
    @Test("a signal ends every wait at once; without one, a wait lasts its limit")
    func wakes() async {
        let signal = ChangeSignal()
        #expect(!signal.hasSignalled)
        let clock = ContinuousClock()
        // A signal wakes the waiters registered by then: keep signalling until all three have returned.
        let signaller = Task {
            while !Task.isCancelled {
                signal.signal()
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let waited = await withTaskGroup(of: Duration.self) { group in
            for _ in 0..<3 {
                group.addTask { await clock.measure { await signal.wait(upTo: .seconds(30)) } }
            }
            return await group.reduce(into: [Duration]()) { $0.append($1) }
        }
        signaller.cancel()
        #expect(waited.count == 3)
        #expect(waited.allSatisfy { $0 < .seconds(10) })
        #expect(signal.hasSignalled)
        let alone = await clock.measure { await ChangeSignal().wait(upTo: .milliseconds(50)) }
        #expect(alone >= .milliseconds(50) && alone < .seconds(10))
    }

    @Test("a cancelled wait returns at once")
    func cancelled() async {
        let signal = ChangeSignal()
        let clock = ContinuousClock()
        let task = Task { await clock.measure { await signal.wait(upTo: .seconds(30)) } }
        try? await Task.sleep(for: .milliseconds(20))
        task.cancel()
        #expect(await task.value < .seconds(10))
    }

    @Test("a signal between reading the epoch and the wait's start ends the wait at once; none, and it lasts")
    func signalBeforeTheWaitStarts() async {
        let signal = ChangeSignal()
        let clock = ContinuousClock()
        // The manager reads the epoch, looks at its record, and then waits: an announcement in between (here,
        // before the wait is called at all) must not be lost, or the wait lasts its whole limit.
        let epoch = signal.epoch
        signal.signal()
        var signalled = false
        let waited = await clock.measure {
            signalled = await signal.wait(upTo: .seconds(30), unlessSignalledSince: epoch)
        }
        #expect(signalled)
        #expect(waited < .seconds(10))
        // No signal since the epoch read: the wait lasts its limit, and says it was not signalled.
        let quiet = signal.epoch
        var timedOut = true
        let full = await clock.measure {
            timedOut = !(await signal.wait(upTo: .milliseconds(50), unlessSignalledSince: quiet))
        }
        #expect(timedOut)
        #expect(full >= .milliseconds(50))
    }
}
