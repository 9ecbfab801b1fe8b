import Crypto
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A store that announces changes to its items, made by any process that shares it (PostgreSQL's
/// `LISTEN`/`NOTIFY`, for example), so that caches of its items can be dropped everywhere at once.
///
/// A cache follows the feed without knowing the store behind it: `SessionDirectory` and the back end for
/// front ends take any feed.
public protocol SecureStoreChangeFeed: Sendable {
    /// Changes to this service's items from now on.
    ///
    /// Listening has started when this returns: every change committed afterwards is in the stream. When the
    /// stream ends, with an error or without, changes may have been missed: treat every cached item as changed
    /// and call `changes()` again.
    ///
    /// - Throws: ``SecureStoreError/Code/unavailable`` when the store cannot be reached.
    func changes() async throws(SecureStoreError) -> AsyncThrowingStream<SecureStoreChange, any Error>
}

/// A change to one item of a store, or to all of them, as a ``SecureStoreChangeFeed`` announces it.
public struct SecureStoreChange: Sendable, Hashable, CustomStringConvertible {
    /// The hex SHA-256 of the changed item's key (``digest(ofKey:)``), or `nil` when every item of the service
    /// changed. The key itself is never announced.
    public let keyDigest: String?
    /// Whether this very store object made the change. A cache whose own write this is already holds what was
    /// written and need not read it again.
    public let isOwnWrite: Bool
    /// The item as the change left it, when the store could announce it (PostgreSQL does when the sealed value
    /// fits in a notification): a cache can take it instead of reading the store. `nil` means "read it".
    ///
    /// A store announces only what it has authenticated whole (PostgreSQL's announcements are sealed with the
    /// store's key over the row's digest, the writer, the version and the value), so a forged or altered
    /// announcement carries no item. An authentic one may still be a replay of an old write: take it only when
    /// it moves forward a version this cache has read (`SessionManager.storeDidChange(to:)` does).
    public let item: VersionedItem?

    /// A change to the item whose key has `keyDigest`, or to every item for `nil`, with the item as written
    /// when the store can say.
    public init(keyDigest: String?, isOwnWrite: Bool = false, item: VersionedItem? = nil) {
        self.keyDigest = keyDigest
        self.isOwnWrite = isOwnWrite
        self.item = item
    }

    /// Whether this change concerns the item under `key`.
    public func affects(key: String) -> Bool {
        keyDigest == nil || keyDigest == Self.digest(ofKey: key)
    }

    /// The digest's first characters, or "all items", and the announced version: never the data.
    public var description: String {
        var what = keyDigest.map { "item \($0.prefix(16))…" } ?? "all items"
        if let item { what += ", version \(item.version)" }
        return isOwnWrite ? "Change(\(what), own write)" : "Change(\(what))"
    }

    /// The hex SHA-256 of `key`, as changes name items.
    public static func digest(ofKey key: String) -> String {
        Hex.sha256(key)
    }
}
