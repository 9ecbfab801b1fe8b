#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A synchronous ``SecureStore`` (file, keyring, Keychain, memory) seen as an ``AsyncSecureStore``.
///
/// Each call runs the store's own synchronous method: these stores answer from local files or a local
/// daemon, so their calls are short (a file store waits at most its lock timeout). Servers whose store talks
/// to a network service use a store that is asynchronous by construction instead, such as the PostgreSQL one.
/// A store that keeps a journal (``SecureStoreJournal``) keeps it through the adapter.
public struct SynchronousStoreAdapter: AsyncSecureStore {
    /// The store every call goes to.
    public let base: any SecureStore

    /// Adapts `base`.
    public init(_ base: any SecureStore) {
        self.base = base
    }

    /// The base store's service.
    public var service: String { base.service }

    /// See ``SecureStore/data(forKey:)``.
    public func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        try base.data(forKey: key)
    }

    /// See ``SecureStore/setData(_:forKey:)``.
    public func setData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try base.setData(data, forKey: key)
    }

    /// See ``SecureStore/deleteItem(forKey:)``.
    public func deleteItem(forKey key: String) async throws(SecureStoreError) {
        try base.deleteItem(forKey: key)
    }

    /// See ``SecureStore/deleteAll()``.
    public func deleteAll() async throws(SecureStoreError) {
        try base.deleteAll()
    }

    /// See ``SecureStore/keys()``.
    public func keys() async throws(SecureStoreError) -> [String] {
        try base.keys()
    }

    /// See ``SecureStore/update(forKey:_:)``.
    @discardableResult
    nonisolated(nonsending) public func update(forKey key: String, _ transform: (Data?) throws -> Data?) async throws
        -> Data?
    {
        try base.update(forKey: key, transform)
    }

    /// Whether the base store is a ``SecureStoreJournal``.
    public var keepsJournal: Bool { base is any SecureStoreJournal }

    /// The base store's journal entry, or `nil` when it keeps no journal.
    public func journalEntry(forKey key: String) async throws(SecureStoreError) -> Data? {
        guard let journal = base as? any SecureStoreJournal else { return nil }
        return try journal.journalEntry(forKey: key)
    }

    /// Writes the base store's journal entry; nothing when it keeps no journal.
    public func setJournalEntry(_ data: Data?, forKey key: String) async throws(SecureStoreError) {
        guard let journal = base as? any SecureStoreJournal else { return }
        try journal.setJournalEntry(data, forKey: key)
    }
}
