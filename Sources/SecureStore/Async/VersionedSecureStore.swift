public import Foundation

/// An item as stored, with the version the store gave it: what a conditional write expects.
public struct VersionedItem: Sendable, Equatable {
    /// The item's data, or `nil` when there is none.
    public var data: Data?
    /// The item's version: it changes with every write; `0` for an item that does not exist.
    public var version: UInt64

    /// An item at `version`.
    public init(data: Data?, version: UInt64) {
        self.data = data
        self.version = version
    }
}

/// A store that versions its items and writes conditionally: a writer that read an item at version N writes
/// in one round trip, with no lock, if the item is still at N (compare-and-set), and learns otherwise.
///
/// `SessionManager` uses it when it holds the record it read: taking a renewal lease and saving the renewed
/// tokens then cost one statement each on PostgreSQL instead of a transaction of five.
public protocol VersionedSecureStore: AsyncSecureStore {
    /// The item under `key` and its version (`0`, with no data, when there is none).
    func versionedData(forKey key: String) async throws(SecureStoreError) -> VersionedItem

    /// Stores `data` under `key` (`nil` deletes the item) if the item is still at `version` (`0`: does not
    /// exist), and announces the change like any other write.
    ///
    /// - Returns: The item's new version (`0` after a delete), or `nil` when it was not at `version`: nothing
    ///   was written.
    func replace(forKey key: String, ifVersion version: UInt64, with data: Data?) async throws(SecureStoreError)
        -> UInt64?
}
