import SecureStore
import SessionKit
import Synchronization

extension VersionedStoreCoordinator {
    /// Takes a record that the store announced with a change when it moves forward the version this coordinator
    /// knows; ignores one that does not; and drops the record held, for the next call to read, when it knows no
    /// version yet or cannot decode the item.
    func takeAnnounced(_ item: VersionedItem) {
        let known = knownVersion.withLock { $0 }
        if known > 0, item.version <= known { return }
        guard known > 0, var record = try? SessionRecord.stored(item.data) else {
            held.drop()
            return
        }
        record.storeVersion = item.version
        held.withLock { cached in
            if let current = cached?.storeVersion, current >= item.version { return }
            cached = record
        }
        noteKnownVersion(item.version)
    }

    /// Whether the directory's follower receives the store's announcements now.
    var followsAnnouncements: Bool { fleet?.listening.isListening ?? false }

    /// A random pause while the directory's leases are contended and announcements are followed.
    func pauseBeforeLease() -> Duration? { fleet?.listening.pauseBeforeLease() }

    /// Counts the refusal toward the directory's contention.
    func leaseRefused() { fleet?.listening.noteLeaseRefused() }

    /// Counts the renewal in the directory's metrics.
    func renewalEnded(_ outcome: RenewalOutcome) { fleet?.metrics.record(outcome) }
}
