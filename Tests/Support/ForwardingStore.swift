package import Foundation
package import SecureStore

/// A test store that passes every call on to `base` unless it implements the call itself: a store that holds a read
/// in flight, refuses writes or counts calls writes only what it changes.
package protocol ForwardingStore: AsyncSecureStore {
    associatedtype Base: AsyncSecureStore
    /// The store every call goes to.
    var base: Base { get }
}

extension ForwardingStore {
    package var service: String { base.service }
    package var keepsJournal: Bool { base.keepsJournal }
    package func data(forKey key: String) async throws(SecureStoreError) -> Data? { try await base.data(forKey: key) }
    package func setData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await base.setData(data, forKey: key)
    }
    package func deleteItem(forKey key: String) async throws(SecureStoreError) {
        try await base.deleteItem(forKey: key)
    }
    package func deleteAll() async throws(SecureStoreError) { try await base.deleteAll() }
    package func keys() async throws(SecureStoreError) -> [String] { try await base.keys() }
    package nonisolated(nonsending) func update(forKey key: String, _ transform: (Data?) throws -> Data?)
        async throws -> Data?
    {
        try await base.update(forKey: key, transform)
    }
    package func journalEntry(forKey key: String) async throws(SecureStoreError) -> Data? {
        try await base.journalEntry(forKey: key)
    }
    package func setJournalEntry(_ data: Data?, forKey key: String) async throws(SecureStoreError) {
        try await base.setJournalEntry(data, forKey: key)
    }
}

extension ForwardingStore where Base: VersionedSecureStore {
    package func versionedData(forKey key: String) async throws(SecureStoreError) -> VersionedItem {
        try await base.versionedData(forKey: key)
    }
    package func replace(forKey key: String, ifVersion version: UInt64, with data: Data?, dueAt: Date?)
        async throws(SecureStoreError) -> VersionedWrite
    {
        try await base.replace(forKey: key, ifVersion: version, with: data, dueAt: dueAt)
    }
    package func leaseIfDue(forKey key: String, dueBy threshold: Date, lease: ItemLease)
        async throws(SecureStoreError) -> LeasedRead
    {
        try await base.leaseIfDue(forKey: key, dueBy: threshold, lease: lease)
    }
}
