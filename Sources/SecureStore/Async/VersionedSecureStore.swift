#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An item as stored, with the version the store gave it: what a conditional write expects.
public struct VersionedItem: Sendable, Hashable, CustomStringConvertible {
    /// The item's data, or `nil` when there is none.
    public var data: Data?
    /// The item's version: it changes with every write; `0` for an item that does not exist.
    public var version: UInt64
    /// The lease taken on the item with ``VersionedSecureStore/leaseIfDue(forKey:dueBy:lease:)``, as the
    /// store holds it (active or lapsed); `nil` when there is none. Every write of the item ends it.
    public var lease: ItemLease?

    /// An item at `version`, with `lease` beside it.
    public init(data: Data?, version: UInt64, lease: ItemLease? = nil) {
        self.data = data
        self.version = version
        self.lease = lease
    }

    /// The version and the data's size: never the data, which may be a secret.
    public var description: String {
        "VersionedItem(version: \(version), \(data.map { "\($0.count) bytes" } ?? "no data")"
            + (lease.map { ", leased until \($0.until)" } ?? "") + ")"
    }
}

/// Who may act on an item until when, kept by the store beside the item (in plain columns, not sealed).
public struct ItemLease: Sendable, Hashable {
    /// Who holds it, as the holder wrote it (the store does not read it).
    public var owner: String
    /// When the lease lapses, whatever its holder does.
    public var until: Date

    /// A lease for `owner` until `until`.
    public init(owner: String, until: Date) {
        self.owner = owner
        self.until = until
    }
}

/// What a conditional write (``VersionedSecureStore/replace(forKey:ifVersion:with:dueAt:)``) did.
public enum VersionedWrite: Sendable, Hashable {
    /// The item was written; this is its new version (`0` after a delete).
    case written(version: UInt64)
    /// The item was not at the version expected, so nothing was written. `current` is the item as the store
    /// holds it now, when the store could tell in the same round trip; `nil` when it could not (the item changed
    /// while the write waited for it): read it, or wait for the change to be announced.
    case refused(current: VersionedItem?)
}

/// What ``VersionedSecureStore/leaseIfDue(forKey:dueBy:lease:)`` found and did.
public struct LeasedRead: Sendable, Hashable {
    /// What the read decided.
    public enum Outcome: Sendable, Hashable {
        /// The item was due and free: the lease asked for is taken, and ``LeasedRead/item`` is at the version
        /// the lease gave it.
        case leased
        /// The item is not due, has no due time, does not exist, or a lease is on it that is lapsed or the
        /// caller's own: nothing was written, and ``LeasedRead/item`` is the item as stored, with that lease. A
        /// read that met another reader leasing the item in the same instant returns the item as that reader left
        /// it.
        case notLeased
        /// The item is due and another owner's lease on it is live: nothing was written, and ``LeasedRead/item``
        /// has the item's version and that lease but no data. Its holder is renewing it: the caller waits for the
        /// write that ends the lease (announced, or read after the lease lapses) rather than for a value it could
        /// not use. A store may always answer ``notLeased`` with the data instead.
        case heldElsewhere
    }

    /// The item (with the lease on it, if any).
    public var item: VersionedItem
    /// What was done.
    public var outcome: Outcome

    /// A read that found `item` and did `outcome`.
    public init(item: VersionedItem, outcome: Outcome) {
        self.item = item
        self.outcome = outcome
    }
}

/// A store that versions its items and writes conditionally: a writer that read an item at version N writes
/// in one round trip, with no lock, if the item is still at N (compare-and-set), and learns otherwise.
///
/// `SessionManager` uses it when it holds the record it read: taking a renewal lease and saving the renewed
/// tokens then cost one statement each on PostgreSQL instead of a transaction of five, and a lease refused
/// because another instance took it first costs no read either. Its first call for a session reads and, when the
/// session is due for renewal, leases it in the same statement (``leaseIfDue(forKey:dueBy:lease:)``), so that
/// several instances meeting an expired session at once send one statement each and renew it once.
///
/// A lease taken by a read lives beside the item, where only ``versionedData(forKey:)``, ``leaseIfDue(forKey:dueBy:lease:)``
/// and a refused ``replace(forKey:ifVersion:with:dueAt:)`` show it: `update(forKey:_:)` and `setData(_:forKey:)` end it
/// unseen, so a writer that honours leases writes only with ``replace(forKey:ifVersion:with:dueAt:)``.
public protocol VersionedSecureStore: AsyncSecureStore {
    /// The item under `key` and its version (`0`, with no data, when there is none).
    func versionedData(forKey key: String) async throws(SecureStoreError) -> VersionedItem

    /// Stores `data` under `key` (`nil` deletes the item) if the item is still at `version` (`0`: does not
    /// exist), ends any lease on it, records when it falls due (`dueAt`; `nil`: never), and announces the change
    /// like any other write.
    ///
    /// - Returns: ``VersionedWrite/written(version:)`` with the item's new version, or
    ///   ``VersionedWrite/refused(current:)`` when it was not at `version`: nothing was written.
    func replace(forKey key: String, ifVersion version: UInt64, with data: Data?, dueAt: Date?)
        async throws(SecureStoreError) -> VersionedWrite

    /// Reads the item under `key` and, in the same round trip, leases it as `lease` says when it falls due at or
    /// before `threshold` (its `dueAt`) and no lease is on it. The lease moves the item's version on, without
    /// announcing it; the write that follows (any write) ends it. A due item under another owner's live lease
    /// may come back without its data (``LeasedRead/Outcome/heldElsewhere``).
    func leaseIfDue(forKey key: String, dueBy threshold: Date, lease: ItemLease)
        async throws(SecureStoreError) -> LeasedRead
}

extension VersionedSecureStore {
    /// ``replace(forKey:ifVersion:with:dueAt:)`` for an item that never falls due.
    public func replace(forKey key: String, ifVersion version: UInt64, with data: Data?)
        async throws(SecureStoreError) -> VersionedWrite
    {
        try await replace(forKey: key, ifVersion: version, with: data, dueAt: nil)
    }
}
