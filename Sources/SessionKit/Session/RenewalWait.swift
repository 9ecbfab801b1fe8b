/// How a call waits for another instance's renewal, decided as a value: the manager asks ``next(now:)`` for a
/// step, carries it out (a sleep that an announcement may cut short, a store read), and tells how a sleep ended
/// with ``woke(signalled:holdsKnownRecord:followingAnnouncements:)``. Between steps it looks at the record it
/// holds and at what it read, and stops waiting as soon as one shows the other renewal's result (or its lease
/// lapsed). The decisions are tested on their own, as ``RenewalDecisions`` are.
///
/// The rules:
/// - The store is polled at the policy's `pollInterval`, each poll after twice the pause of the last, up to eight
///   times the interval.
/// - Once the store is known to announce changes (one was heard, or announcements are followed), polls are only a
///   safety net, at the longest pause from the first on: eight intervals, and at least a second.
/// - A sleep that an announcement ended, or any sleep while announcements are followed, reads nothing when the
///   record held is one the store's versions vouch for (``SessionCoordinator/knownRecord()``): it is as new as the
///   store's, and it is looked at again on the next turn (its lease's expiry, its holder's pid). A lost
///   connection clears that record, and then the store is read.
/// - No sleep outlasts the deadline; at the deadline the wait ends, unresolved.
struct RenewalWait: Equatable {
    /// One step of the wait.
    enum Step: Equatable {
        /// Sleep for this long, or until an announcement, and report with
        /// ``RenewalWait/woke(signalled:holdsKnownRecord:followingAnnouncements:)``.
        case sleep(Duration)
        /// Read the record from the store.
        case read
        /// The deadline passed: give up.
        case timedOut
    }

    /// The longest pause between polls.
    let ceiling: Duration
    /// When the wait gives up.
    let deadline: ContinuousClock.Instant
    /// The pause before the next poll.
    private(set) var interval: Duration
    /// Whether the sleep that ended calls for a read.
    private var readNext = false

    /// A wait polling at `pollInterval` at first, or as a safety net only when the store is known to announce
    /// changes (`announced`), until `deadline`.
    init(pollInterval: Duration, announced: Bool, deadline: ContinuousClock.Instant) {
        ceiling = announced ? max(pollInterval * 8, .seconds(1)) : pollInterval * 8
        interval = announced ? ceiling : pollInterval
        self.deadline = deadline
    }

    /// The next step at `now`.
    mutating func next(now: ContinuousClock.Instant) -> Step {
        if readNext {
            readNext = false
            return .read
        }
        guard now < deadline else { return .timedOut }
        return .sleep(min(interval, deadline - now))
    }

    /// A sleep ended: by an announcement (`signalled`) or by its time, with a record the store's versions vouch
    /// for held or not (`holdsKnownRecord`), while announcements are followed or not.
    mutating func woke(signalled: Bool, holdsKnownRecord: Bool, followingAnnouncements: Bool) {
        if holdsKnownRecord && (signalled || followingAnnouncements) { return }
        interval = min(interval * 2, ceiling)
        readNext = true
    }
}
