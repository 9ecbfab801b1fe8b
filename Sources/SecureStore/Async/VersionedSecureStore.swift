public import Foundation

/// An item as stored, with the version the store gave it: what a conditional write expects.
public struct VersionedItem: Sendable, Hashable, CustomStringConvertible {
    /// The item's data, or `nil` when there is none.
    public var data: Data?
    /// The item's version: it changes with every write; `0` for an item that does not exist.
    public var version: UInt64

    /// An item at `version`.
    public init(data: Data?, version: UInt64) {
        self.data = data
        self.version = version
    }

    /// The version and the data's size: never the data, which may be a secret.
    public var description: String {
        "VersionedItem(version: \(version), \(data.map { "\($0.count) bytes" } ?? "no data"))"
    }
}

/// What a conditional write (``VersionedSecureStore/replace(forKey:ifVersion:with:)``) did.
public enum VersionedWrite: Sendable, Hashable {
    /// The item was written; this is its new version (`0` after a delete).
    case written(version: UInt64)
    /// The item was not at the version expected, so nothing was written. `current` is the item as the store
    /// holds it now, when the store could tell in the same round trip; `nil` when it could not (the item changed
    /// while the write waited for it): read it, or wait for the change to be announced.
    case refused(current: VersionedItem?)
}

/// A store that versions its items and writes conditionally: a writer that read an item at version N writes
/// in one round trip, with no lock, if the item is still at N (compare-and-set), and learns otherwise.
///
/// `SessionManager` uses it when it holds the record it read: taking a renewal lease and saving the renewed
/// tokens then cost one statement each on PostgreSQL instead of a transaction of five, and a lease refused
/// because another instance took it first costs no read either.
public protocol VersionedSecureStore: AsyncSecureStore {
    /// The item under `key` and its version (`0`, with no data, when there is none).
    func versionedData(forKey key: String) async throws(SecureStoreError) -> VersionedItem

    /// Stores `data` under `key` (`nil` deletes the item) if the item is still at `version` (`0`: does not
    /// exist), and announces the change like any other write.
    ///
    /// - Returns: ``VersionedWrite/written(version:)`` with the item's new version, or
    ///   ``VersionedWrite/refused(current:)`` when it was not at `version`: nothing was written.
    func replace(forKey key: String, ifVersion version: UInt64, with data: Data?) async throws(SecureStoreError)
        -> VersionedWrite
}
