#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A store that can set a value aside when its ordinary write path is blocked, so that the value outlives
/// the process that could not write it.
///
/// A session manager writes renewed credentials with ``SecureStore/update(forKey:_:)``. When that fails for
/// a passing reason (the lock is held too long by another process), the new refresh token must not be
/// lost: the provider has already rotated the old one. It is written here instead, and the next caller,
/// in this process or another, moves it into the store.
///
/// A journal entry is written without the store's lock, atomically, with the same protection as the store's
/// items. It is a last resort, not a second store: one entry per key, read back and removed by the writer's
/// next successful update.
public protocol SecureStoreJournal: SecureStore {
    /// The entry set aside for `key`, or `nil` when there is none.
    func journalEntry(forKey key: String) throws(SecureStoreError) -> Data?

    /// Sets `data` aside for `key`, replacing any earlier entry; `nil` removes the entry.
    func setJournalEntry(_ data: Data?, forKey key: String) throws(SecureStoreError)
}
