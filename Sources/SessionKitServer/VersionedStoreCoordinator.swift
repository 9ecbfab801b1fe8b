import SecureStore
import SessionKit
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The server half's `SessionCoordinator`: a session's record in a store that versions its items and announces
/// their changes (a `VersionedSecureStore` and its change feed, such as SessionKitPostgres's), shared by a fleet of
/// instances.
///
/// - The record held in memory is kept at the version the store gave it (read, written or announced), and a write
///   is conditional on that version: one round trip, with no lock. A refused write brings the stored record back,
///   and the transform runs again on that, so a lease that another instance took first costs nothing more.
/// - A first call's read leases a due session in the same round trip (`VersionedSecureStore.leaseIfDue`); that
///   lease lives beside the record, where only versioned reads and refusals show it, so this store is only ever
///   written conditionally: a transform run in its plain `update` could write over another instance's lease.
/// - An announced record is taken only when it moves forward a version this coordinator knows: an authentic
///   announcement may be a replay of an old write.
/// - With a ``DirectoryFleet``, it tells the manager whether announcements are followed, pauses before contended
///   leases (``ChangeListening``), and counts renewals in the directory's metrics.
final class VersionedStoreCoordinator: SessionCoordinator {
    /// How many refused conditional writes in a row ``update(_:)`` takes before it fails: each refusal means
    /// another writer changed the record in between, and brings its new version back.
    static let maximumRefusals = 8

    /// The store the record lives in.
    let store: any VersionedSecureStore
    /// The record's key in the store.
    let key: String
    /// What the manager holds in memory.
    let held: HeldSession
    /// The directory's fleet, for a directory's manager.
    let fleet: DirectoryFleet?
    /// The newest version of the record that this coordinator has read, written or taken from an announcement
    /// (`0`: none yet, or no row), and the newest announcement that came before any version was known. An
    /// announced record is taken only when it moves the known version forward; one that came first waits for a
    /// read to give a version it must move forward (see ``noteKnownVersion(_:)``).
    let versions = Mutex<(known: UInt64, unvouched: VersionedItem?)>((0, nil))

    /// A coordinator for the record under `key` in `store`, keeping what it reads and writes in `held`, for a
    /// manager of `fleet` (if any).
    init(store: any VersionedSecureStore, key: String, held: HeldSession, fleet: DirectoryFleet?) {
        self.store = store
        self.key = key
        self.held = held
        self.fleet = fleet
    }

    /// Reads the record at its version, with the lease kept beside it, and holds it unless a newer one was
    /// announced meanwhile.
    func read() async throws(SessionKitError) -> SessionRecord {
        let item: VersionedItem
        do {
            item = try await store.versionedData(forKey: key)
        } catch {
            throw held.storeFailure(error)
        }
        return try hold(item)
    }

    /// Reads the record and leases it as due in the same round trip.
    func readLeasingIfDue(dueBy: Date, owner: String, until: Date) async throws(SessionKitError) -> LeasedLoad {
        let read: LeasedRead
        do {
            read = try await store.leaseIfDue(
                forKey: key, dueBy: dueBy, lease: SessionRecord.storeLease(owner: owner, until: until))
        } catch {
            throw held.storeFailure(error)
        }
        switch read.outcome {
        case .heldElsewhere:
            // Ends with a newer version, or with this one once its lease lapsed.
            let version = read.item.version
            noteKnownVersion(version)
            return .heldElsewhere { record, now in
                guard let stored = record.storeVersion else { return false }
                return stored > version || stored == version && !(record.renewal?.isActive(at: now) ?? false)
            }
        case .leased: return .leased(try hold(read.item))
        case .notLeased: return .read(try hold(read.item))
        }
    }

    /// The record held, when it is held at a version the store gave it.
    func knownRecord() -> SessionRecord? {
        held.withLock { $0?.storeVersion != nil ? $0 : nil }
    }

    /// Decodes a record just read, with the lease kept beside it, holds it unless a newer one was announced
    /// meanwhile, and reports it read.
    private func hold(_ item: VersionedItem) throws(SessionKitError) -> SessionRecord {
        var record = try SessionRecord.stored(item.data)
        record.takeStoreLease(item.lease)
        record.storeVersion = item.version
        record = holdNewest(record)
        held.didRead(record)
        return record
    }

    /// Holds `record`, read from or written to the store, unless the record held is newer: a read or a write and
    /// an announcement may cross, and a record announced while the call was under way is newer than what the call
    /// returns. Returns the record now held.
    func holdNewest(_ record: SessionRecord) -> SessionRecord {
        noteKnownVersion(record.storeVersion ?? 0)
        return held.withLock { cached in
            if let current = cached, current.storeVersion != nil, current.generation > record.generation {
                return current
            }
            cached = record
            return record
        }
    }

    /// Records that the store held the record at `version` (a read, a write, a refusal or an announcement taken),
    /// and takes an announcement that came before any version was known once it moves that version forward.
    ///
    /// That announcement was written after the read that gave the version: a first read that met another
    /// instance's lease, and was answered only after that instance's renewal was announced (a loaded machine),
    /// finds the renewed record here instead of reading it again. A replayed announcement of an older write does
    /// not move the version forward and is dropped, as it is when it comes later.
    func noteKnownVersion(_ version: UInt64) {
        let vouched = versions.withLock { state -> VersionedItem? in
            state.known = max(state.known, version)
            guard state.known > 0, let item = state.unvouched else { return nil }
            state.unvouched = nil
            return item.version > state.known ? item : nil
        }
        if let vouched { takeAnnounced(vouched) }
    }

    /// See `AsyncSecureStore.deleteSessionIfUnreadable(forKey:held:)`.
    func deleteIfUnreadable() async throws(SessionKitError) -> Bool {
        try await store.deleteSessionIfUnreadable(forKey: key, held: held)
    }

    /// Whether the store keeps a journal.
    var keepsJournal: Bool { store.keepsJournal }

    /// The store's journal entry for the record.
    func journalEntry() async throws(SecureStoreError) -> Data? {
        try await store.journalEntry(forKey: key)
    }

    /// Writes the store's journal entry for the record.
    func setJournalEntry(_ data: Data?) async throws(SecureStoreError) {
        try await store.setJournalEntry(data, forKey: key)
    }
}
