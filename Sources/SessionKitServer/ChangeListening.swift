import Synchronization

/// What the managers of one server directory share about the store's announcements: whether someone listens to
/// them (the directory following PostgreSQL's NOTIFY), and whether leases are being contended (several instances
/// renewing the same sessions at once, as in a storm of tokens that expired together).
///
/// While announcements are followed, a manager waiting for another instance's renewal is woken by the
/// announcement and polls the store only as a safety net, from its first wait on. While leases are contended, a
/// manager about to take one first waits a few random milliseconds for an announcement that another instance
/// took it: a refused lease costs a statement, a heard one nothing.
final class ChangeListening: Sendable {
    private struct Refusals {
        var windowStart = ContinuousClock.now
        var count = 0
        /// The count of the window before, so that contention carries over from one window to the next.
        var previous = 0

        mutating func roll(at now: ContinuousClock.Instant) {
            guard now - windowStart > ChangeListening.window else { return }
            previous = now - windowStart > ChangeListening.window * 2 ? 0 : count
            (windowStart, count) = (now, 0)
        }
    }

    /// Refused leases in a window of `window` (this one or the one before) that make leases count as contended.
    static let contendedAt = 4
    static let window = Duration.seconds(1)
    /// The longest random pause before a contended lease. Four instances that draw within an announcement's
    /// delivery time of each other still collide. In a storm of 3,000 sessions × 4 instances (one run each), a
    /// lease was refused for 0.34 sessions in 1 at 60 ms, 0.16 at 150 ms, 0.14 at 300 ms, which made the storm
    /// take longer.
    static let pauseLimit = Duration.milliseconds(150)

    private let listening = Atomic<Bool>(false)
    private let refusals = Mutex(Refusals())

    /// Nobody listens yet.
    init() {}

    /// Whether announcements are being received now.
    var isListening: Bool { listening.load(ordering: .relaxed) }

    /// Records that announcements started (`true`) or stopped (`false`) arriving.
    func set(_ isListening: Bool) {
        listening.store(isListening, ordering: .relaxed)
    }

    /// Records that a lease was refused because another instance took it first.
    func noteLeaseRefused() {
        refusals.withLock { refusals in
            refusals.roll(at: .now)
            refusals.count += 1
        }
    }

    /// How long to pause before taking a lease: a random share of ``pauseLimit`` while leases are contended and
    /// announcements are followed, else nothing.
    func pauseBeforeLease() -> Duration? {
        guard isListening else { return nil }
        let contended = refusals.withLock { refusals in
            refusals.roll(at: .now)
            return max(refusals.count, refusals.previous) >= Self.contendedAt
        }
        guard contended else { return nil }
        return .microseconds(Int64.random(in: 0...Int64(Self.pauseLimit.components.attoseconds / 1_000_000_000_000)))
    }
}
