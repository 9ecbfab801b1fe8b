package import SecureStore

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// How a ``SessionManager`` reaches its session's record and coordinates with the other instances that share it:
/// it reads, leases, writes, waits and journals through this protocol, and decides everything else itself
/// (``RenewalDecisions``, ``RenewalWait``, ``RenewalCommit``).
///
/// Shaped like Hummingbird's `PersistDriver`: a protocol with an in-memory reference
/// (``MemorySessionCoordinator``, for tests), an implementation over a store's atomic update for apps and
/// command-line tools (``AtomicUpdateCoordinator``), and one in SessionKitServer over a versioned store and its
/// change feed, which also carries what a fleet of servers needs (announced records, pauses before contended
/// leases, renewal metrics). A coordinator serves one manager, for one record: it keeps the record the manager
/// holds in memory (``HeldSession``) as its store requires.
///
/// The hooks a fleet uses (``followsAnnouncements``, ``pauseBeforeLease()``, ``leaseRefused()``,
/// ``renewalEnded(_:)``) do nothing by default, and ``readLeasingIfDue(dueBy:owner:until:)`` only reads.
package protocol SessionCoordinator: Sendable {
    /// Reads the record from the store (an empty record when there is none), keeps it in memory as the store
    /// requires, reports it with ``HeldSession/didRead(_:)``, and returns the record now held.
    func read() async throws(SessionKitError) -> SessionRecord

    /// The stored record, read without suspending, or `nil` when the store cannot be read that way (then the
    /// manager answers from memory only). For a command-line tool's hot path.
    func readWithoutSuspending() throws(SessionKitError) -> SessionRecord?

    /// A first call's read: the record, leased to `owner` until `until` in the same round trip when its access
    /// token is due by `dueBy` and no renewal is under way, where the store can do that.
    func readLeasingIfDue(dueBy: Date, owner: String, until: Date) async throws(SessionKitError) -> LeasedLoad

    /// The record held in memory when the store said which version it is (read, written or announced), so that a
    /// renewal may start from it and a wait may end with it: the writes that follow are conditional, and a stale
    /// record costs a refusal, never a wrong write. `nil` when only a read can tell.
    func knownRecord() -> SessionRecord?

    /// Atomically replaces the stored record with what `transform` makes of it, and keeps the result in memory.
    /// `transform` sees the stored record (or one the store will refuse to write over if it is stale) and may run
    /// more than once; returning `nil` leaves the store untouched.
    ///
    /// - Returns: The record now stored: the transform's result, or the unchanged stored record.
    nonisolated(nonsending) func update(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> (record: SessionRecord, changed: Bool)

    /// Deletes the record when it cannot be read (damaged, or written with another key), and every item of the
    /// store when the store itself cannot be read. A readable record is left alone.
    ///
    /// - Returns: Whether anything was deleted.
    func deleteIfUnreadable() async throws(SessionKitError) -> Bool

    /// Takes a record the store announced with a change (`SessionManager.storeDidChange(to:)`), where the
    /// store's versions say it is newer than what is held; else drops what is held, for the next call to read.
    ///
    /// - Returns: Whether what is held changed (taken or dropped), so that a call waiting for another renewal
    ///   should look again; `false` for an item the store's versions show is no news: no newer than what is
    ///   known, or kept aside for a read under way to vouch for.
    @discardableResult
    func takeAnnounced(_ item: VersionedItem) -> Bool

    /// Whether the store's announcements reach this manager now: then a wait for another renewal is woken by
    /// them and polls only as a safety net.
    var followsAnnouncements: Bool { get }

    /// How long to pause before taking a lease, for an announcement that another instance took it to arrive
    /// first; `nil` for no pause.
    func pauseBeforeLease() -> Duration?

    /// A lease was refused because another instance took it first.
    func leaseRefused()

    /// A renewal that sent a refresh grant ended so (once per renewal, not per caller sharing it).
    func renewalEnded(_ outcome: RenewalOutcome)

    /// Whether the store keeps a journal (``SecureStore/SecureStoreJournal``): a place to set a renewal aside when
    /// the record cannot be written.
    var keepsJournal: Bool { get }

    /// The entry set aside for the record, or `nil` when there is none.
    func journalEntry() async throws(SecureStoreError) -> Data?

    /// Sets `data` aside for the record, replacing any earlier entry; `nil` removes it.
    func setJournalEntry(_ data: Data?) async throws(SecureStoreError)
}

extension SessionCoordinator {
    /// Nothing can be read without suspending.
    package func readWithoutSuspending() throws(SessionKitError) -> SessionRecord? { nil }

    /// Reads without leasing: only a store that leases as it reads can.
    package func readLeasingIfDue(dueBy: Date, owner: String, until: Date) async throws(SessionKitError)
        -> LeasedLoad
    {
        .read(try await read())
    }

    /// Nothing held is known to be current without a read.
    package func knownRecord() -> SessionRecord? { nil }

    /// No announcements are followed.
    package var followsAnnouncements: Bool { false }

    /// No pause.
    package func pauseBeforeLease() -> Duration? { nil }

    /// Nobody counts refusals.
    package func leaseRefused() {}

    /// Nobody counts renewals.
    package func renewalEnded(_ outcome: RenewalOutcome) {}
}
