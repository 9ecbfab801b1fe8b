import Testing

@testable import SessionKit

/// The wait for another instance's renewal as a value: when it sleeps, how long, when it reads, when it gives up.
@Suite("Renewal wait")
struct RenewalWaitTests {
    static let start = ContinuousClock.now
    static let poll = Duration.milliseconds(25)

    static func wait(announced: Bool = false, for timeout: Duration = .seconds(35)) -> RenewalWait {
        RenewalWait(pollInterval: poll, announced: announced, deadline: start + timeout)
    }

    /// The pauses of `count` polls of a wait whose sleeps all end by their time, with nothing held.
    static func pauses(of wait: inout RenewalWait, count: Int) -> [Duration] {
        var pauses: [Duration] = []
        for _ in 0..<count {
            guard case .sleep(let pause) = wait.next(now: start) else { return pauses }
            pauses.append(pause)
            wait.woke(signalled: false, holdsKnownRecord: false, followingAnnouncements: false)
            #expect(wait.next(now: start) == .read)
        }
        return pauses
    }

    @Test("polls at the interval, each pause twice the last, up to eight intervals")
    func backsOff() {
        var wait = Self.wait()
        let pauses = Self.pauses(of: &wait, count: 6)
        #expect(pauses == [25, 50, 100, 200, 200, 200].map { Duration.milliseconds($0) })
        #expect(wait.ceiling == .milliseconds(200))
    }

    @Test("a store known to announce changes is polled only as a safety net, at the longest pause from the start")
    func announcedPollsRarely() {
        var wait = Self.wait(announced: true)
        #expect(Self.pauses(of: &wait, count: 3) == [.seconds(1), .seconds(1), .seconds(1)])
        // A poll interval whose eight times are longer than a second sets the pause.
        var slow = RenewalWait(pollInterval: .milliseconds(500), announced: true, deadline: Self.start + .seconds(60))
        #expect(slow.next(now: Self.start) == .sleep(.seconds(4)))
    }

    @Test("a sleep that ends with a record the store's versions vouch for reads nothing when an announcement ended it")
    func announcementWithRecordReadsNothing() {
        var wait = Self.wait()
        #expect(wait.next(now: Self.start) == .sleep(Self.poll))
        wait.woke(signalled: true, holdsKnownRecord: true, followingAnnouncements: false)
        // No read, and the pause is not lengthened: the next turn looks at the record held again.
        #expect(wait.next(now: Self.start) == .sleep(Self.poll))
        // Woken by an announcement with nothing held to look at (a bare "read it"): read, and back off.
        wait.woke(signalled: true, holdsKnownRecord: false, followingAnnouncements: false)
        #expect(wait.next(now: Self.start) == .read)
        #expect(wait.next(now: Self.start) == .sleep(Self.poll * 2))
    }

    @Test("while announcements are followed, a sleep that ends by its time reads nothing with a record held")
    func followedAnnouncementsReadNothing() {
        var wait = Self.wait(announced: true)
        #expect(wait.next(now: Self.start) == .sleep(.seconds(1)))
        wait.woke(signalled: false, holdsKnownRecord: true, followingAnnouncements: true)
        #expect(wait.next(now: Self.start) == .sleep(.seconds(1)))
        // Not followed any more (the connection was lost) but the record still held: the safety net reads.
        wait.woke(signalled: false, holdsKnownRecord: true, followingAnnouncements: false)
        #expect(wait.next(now: Self.start) == .read)
        // Followed, but the record held was dropped (as a lost connection drops it): read.
        #expect(wait.next(now: Self.start) == .sleep(.seconds(1)))
        wait.woke(signalled: false, holdsKnownRecord: false, followingAnnouncements: true)
        #expect(wait.next(now: Self.start) == .read)
    }

    @Test("no sleep outlasts the deadline; a read due when it passes is still made; then the wait gives up")
    func deadline() {
        var wait = Self.wait(for: .milliseconds(60))
        #expect(wait.next(now: Self.start) == .sleep(Self.poll))
        wait.woke(signalled: false, holdsKnownRecord: false, followingAnnouncements: false)
        #expect(wait.next(now: Self.start + .milliseconds(25)) == .read)
        // 35 ms left, and the pause would be 50 ms.
        #expect(wait.next(now: Self.start + .milliseconds(25)) == .sleep(.milliseconds(35)))
        wait.woke(signalled: false, holdsKnownRecord: false, followingAnnouncements: false)
        #expect(wait.next(now: Self.start + .milliseconds(60)) == .read)
        #expect(wait.next(now: Self.start + .milliseconds(60)) == .timedOut)
        #expect(wait.next(now: Self.start + .seconds(1)) == .timedOut)
    }
}
