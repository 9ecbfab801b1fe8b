#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A secure key-value store whose operations are `async`: what servers use, so that no thread waits while a
/// database answers.
///
/// Shaped like Hummingbird's `PersistDriver`: every operation suspends instead of blocking, and a store that
/// needs a background task (a connection pool, a listener) is also a swift-service-lifecycle `Service`, run
/// by the application's service group. `SessionManager` and `SessionDirectory` use stores through this
/// protocol; the synchronous stores (``EncryptedFileStore``, ``SecretServiceStore``, `KeychainStore`,
/// ``MemoryStore``) keep their API for apps and command-line tools and are adapted by
/// ``SynchronousStoreAdapter``.
///
/// The contract is ``SecureStore``'s: a missing item is `nil`; ``SecureStoreError/Code/unavailable`` means
/// "try again later", never "signed out"; damaged data is ``SecureStoreError/Code/corrupted``, never empty.
public protocol AsyncSecureStore: Sendable {
    /// The service whose items this store holds.
    var service: String { get }

    /// Returns the data stored under `key`, or `nil` when there is none.
    func data(forKey key: String) async throws(SecureStoreError) -> Data?

    /// Stores `data` under `key`, replacing any earlier value.
    func setData(_ data: Data, forKey key: String) async throws(SecureStoreError)

    /// Removes the item under `key`. Removing a missing item is not an error.
    func deleteItem(forKey key: String) async throws(SecureStoreError)

    /// Removes every item of this service, and only this service's items.
    func deleteAll() async throws(SecureStoreError)

    /// The keys of this service's items, sorted.
    func keys() async throws(SecureStoreError) -> [String]

    /// Atomically reads the item under `key`, passes it to `transform`, and stores what it returns (`nil`
    /// deletes the item). No other writer, in this process or, where the backend allows it, another, can
    /// change the item between the read and the write. `transform` runs while the item is locked: it must be
    /// quick and must not wait for anything.
    ///
    /// An error thrown by `transform` propagates unchanged and leaves the item as it was.
    ///
    /// - Returns: The value that `transform` returned, as now stored.
    @discardableResult
    nonisolated(nonsending) func update(forKey key: String, _ transform: (Data?) throws -> Data?) async throws -> Data?

    /// Whether the store keeps a journal (see ``SecureStoreJournal``): a place to set a renewal aside when
    /// ``update(forKey:_:)`` cannot write it. `false` unless the store says otherwise.
    var keepsJournal: Bool { get }

    /// The entry set aside for `key`, or `nil` when there is none (always, for a store without a journal).
    func journalEntry(forKey key: String) async throws(SecureStoreError) -> Data?

    /// Sets `data` aside for `key`, replacing any earlier entry; `nil` removes it. Does nothing in a store
    /// without a journal.
    func setJournalEntry(_ data: Data?, forKey key: String) async throws(SecureStoreError)
}

extension AsyncSecureStore {
    /// No journal unless the store keeps one.
    public var keepsJournal: Bool { false }

    /// No entry: the store keeps no journal.
    public func journalEntry(forKey key: String) async throws(SecureStoreError) -> Data? { nil }

    /// Nothing to write: the store keeps no journal.
    public func setJournalEntry(_ data: Data?, forKey key: String) async throws(SecureStoreError) {}
}

extension AsyncSecureStore {
    /// Returns `true` when an item is stored under `key`.
    public func hasItem(forKey key: String) async throws(SecureStoreError) -> Bool {
        try await data(forKey: key) != nil
    }

    /// Returns the UTF-8 string stored under `key`, or `nil` when there is none.
    ///
    /// - Throws: ``SecureStoreError/Code/corrupted`` when the item is not valid UTF-8.
    public func string(forKey key: String) async throws(SecureStoreError) -> String? {
        guard let data = try await data(forKey: key) else { return nil }
        guard let string = String(data: data, encoding: .utf8) else {
            throw SecureStoreError(
                code: .corrupted,
                message: "the item under key '\(key)' is not a UTF-8 string; read it with data(forKey:)"
            )
        }
        return string
    }

    /// Stores `string` as UTF-8 under `key`, replacing any earlier value.
    public func setString(_ string: String, forKey key: String) async throws(SecureStoreError) {
        try await setData(Data(utf8Of: string), forKey: key)
    }
}
