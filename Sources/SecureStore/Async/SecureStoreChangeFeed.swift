import Crypto
import Foundation

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

    /// A change to the item whose key has `keyDigest`, or to every item for `nil`.
    public init(keyDigest: String?, isOwnWrite: Bool = false) {
        self.keyDigest = keyDigest
        self.isOwnWrite = isOwnWrite
    }

    /// Whether this change concerns the item under `key`.
    public func affects(key: String) -> Bool {
        keyDigest == nil || keyDigest == Self.digest(ofKey: key)
    }

    /// The digest's first characters, or "all items".
    public var description: String {
        let what = keyDigest.map { "item \($0.prefix(16))…" } ?? "all items"
        return isOwnWrite ? "Change(\(what), own write)" : "Change(\(what))"
    }

    /// The hex SHA-256 of `key`, as changes name items.
    public static func digest(ofKey key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
