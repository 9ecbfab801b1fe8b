import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The coordinator of a ``SessionDirectory``'s managers over a store that does not version its items (memory, an
/// encrypted file): `AtomicUpdateCoordinator`'s reads and writes, with the directory's fleet hooks on top (whether
/// announcements are followed, pauses before contended leases, renewal metrics).
struct FleetUpdateCoordinator: SessionCoordinator {
    /// Reads and writes the record.
    let base: AtomicUpdateCoordinator
    /// The directory's fleet.
    let fleet: DirectoryFleet

    /// See `AtomicUpdateCoordinator.read()`.
    func read() async throws(SessionKitError) -> SessionRecord { try await base.read() }

    /// See `AtomicUpdateCoordinator.update(_:)`.
    nonisolated(nonsending) func update(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> (record: SessionRecord, changed: Bool)
    {
        try await base.update(transform)
    }

    /// See `AtomicUpdateCoordinator.deleteIfUnreadable()`.
    func deleteIfUnreadable() async throws(SessionKitError) -> Bool { try await base.deleteIfUnreadable() }

    /// See `AtomicUpdateCoordinator.takeAnnounced(_:)`.
    @discardableResult
    func takeAnnounced(_ item: VersionedItem) -> Bool { base.takeAnnounced(item) }

    /// Whether the directory's follower receives the store's announcements now.
    var followsAnnouncements: Bool { fleet.listening.isListening }

    /// A random pause while the directory's leases are contended and announcements are followed.
    func pauseBeforeLease() -> Duration? { fleet.listening.pauseBeforeLease() }

    /// Counts the refusal toward the directory's contention.
    func leaseRefused() { fleet.listening.noteLeaseRefused() }

    /// Counts the renewal in the directory's metrics.
    func renewalEnded(_ outcome: RenewalOutcome) { fleet.metrics.record(outcome) }

    /// Whether the store keeps a journal.
    var keepsJournal: Bool { base.keepsJournal }

    /// The store's journal entry for the record.
    func journalEntry() async throws(SecureStoreError) -> Data? { try await base.journalEntry() }

    /// Writes the store's journal entry for the record.
    func setJournalEntry(_ data: Data?) async throws(SecureStoreError) { try await base.setJournalEntry(data) }
}
