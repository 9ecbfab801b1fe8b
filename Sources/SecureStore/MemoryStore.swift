import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A ``SecureStore`` that keeps items in memory, for tests and previews. Nothing is encrypted or persisted.
///
/// Several stores can share one ``Backing``, each seeing only its own service's items, just as several
/// services share one keychain:
///
/// ```swift
/// let backing = MemoryStore.Backing()
/// let app = MemoryStore(service: "com.example.app", backing: backing)
/// let widget = MemoryStore(service: "com.example.widget", backing: backing)
/// try app.deleteAll()  // widget's items stay
/// ```
///
/// A `transform` passed to ``update(forKey:_:)`` runs while the backing's lock is held; it must not use
/// any store of the same backing.
public struct MemoryStore: SecureStore {
    /// The items of every service that shares it, guarded by a `Mutex`.
    public final class Backing: Sendable {
        let items = Mutex<[String: [String: Data]]>([:])

        /// Creates an empty backing.
        public init() {}
    }

    /// The service whose items this store holds.
    public let service: String
    /// The storage this store shares with other `MemoryStore`s.
    public let backing: Backing

    /// Creates a store for `service` over `backing` (a new, private one by default).
    public init(service: String, backing: Backing = Backing()) {
        self.service = service
        self.backing = backing
    }

    /// Returns the data stored under `key`, or `nil` when there is none.
    public func data(forKey key: String) throws(SecureStoreError) -> Data? {
        try validate(key: key)
        return backing.items.withLock { $0[service]?[key] }
    }

    /// Stores `data` under `key`, replacing any earlier value.
    public func setData(_ data: Data, forKey key: String) throws(SecureStoreError) {
        try validate(key: key)
        backing.items.withLock { $0[service, default: [:]][key] = data }
    }

    /// Removes the item under `key`. Removing a missing item is not an error.
    public func deleteItem(forKey key: String) throws(SecureStoreError) {
        try validate(key: key)
        backing.items.withLock { _ = $0[service]?.removeValue(forKey: key) }
    }

    /// Removes every item of this service, and only this service's items.
    public func deleteAll() throws(SecureStoreError) {
        try validate(key: nil)
        backing.items.withLock { _ = $0.removeValue(forKey: service) }
    }

    /// The keys of this service's items, sorted.
    public func keys() throws(SecureStoreError) -> [String] {
        try validate(key: nil)
        return backing.items.withLock { items in
            items[service].map { Array($0.keys).sorted() } ?? []
        }
    }

    /// Atomically reads the item under `key`, passes it to `transform`, and stores what it returns
    /// (`nil` deletes the item), holding the backing's lock meanwhile.
    ///
    /// - Returns: The value that `transform` returned, as now stored.
    @discardableResult
    public func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
        try validate(key: key)
        return try backing.items.withLock { items throws -> Data? in
            let new = try transform(items[service]?[key])
            items[service, default: [:]][key] = new
            if items[service]?.isEmpty == true { items[service] = nil }
            return new
        }
    }

    /// Rejects an empty service or key, as every backend does.
    private func validate(key: String?) throws(SecureStoreError) {
        guard !service.isEmpty else {
            throw SecureStoreError(code: .invalidArgument, message: "the service name is empty; pass a non-empty one")
        }
        guard key?.isEmpty != true else {
            throw SecureStoreError(code: .invalidArgument, message: "the item key is empty; pass a non-empty key")
        }
    }
}
