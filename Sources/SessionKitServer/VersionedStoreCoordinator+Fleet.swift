import SecureStore
import SessionKit
import Synchronization

extension VersionedStoreCoordinator {
    /// Takes a record that the store announced with a change when it moves forward the version this coordinator
    /// knows, and ignores one that does not. Drops the record held, for the next call to read, when the item cannot
    /// be decoded.
    ///
    /// Before any version is known (a first read under way, or none yet), an announcement cannot be judged: it is
    /// kept aside, for ``noteKnownVersion(_:)`` to take once a read gives a version it moves forward, and the record
    /// held is dropped. Waiting calls are not woken by it, nor by an announcement ignored: neither brings news.
    @discardableResult
    func takeAnnounced(_ item: VersionedItem) -> Bool {
        let known = versions.withLock { state in
            if state.known == 0, item.version > (state.unvouched?.version ?? 0) { state.unvouched = item }
            return state.known
        }
        guard known > 0 else {
            held.drop()
            return false
        }
        if item.version <= known { return false }
        guard var record = try? SessionRecord.stored(item.data) else {
            held.drop()
            return true
        }
        record.storeVersion = item.version
        held.withLock { cached in
            if let current = cached?.storeVersion, current >= item.version { return }
            cached = record
        }
        noteKnownVersion(item.version)
        return true
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
