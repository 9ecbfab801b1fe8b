package import SecureStore
import Synchronization

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The in-memory reference ``SessionCoordinator``, for tests: records are kept as values in ``Records``, which
/// several coordinators may share as managers in several processes share a store, and written atomically under
/// its lock. Nothing is encoded, so nothing stored is ever unreadable.
package struct MemorySessionCoordinator: SessionCoordinator {
    /// Session records by key, and their journal entries: what the coordinators sharing it see as the store.
    package final class Records: Sendable {
        private struct State {
            var records = [String: SessionRecord]()
            var journal = [String: Data]()
            var writes = 0
        }

        private let state = Mutex(State())
        /// Whether coordinators over these records keep a journal.
        package let keepsJournal: Bool

        /// No records yet; a journal if `keepsJournal`.
        package init(keepsJournal: Bool = true) {
            self.keepsJournal = keepsJournal
        }

        /// The record stored under `key`, if any.
        package func record(forKey key: String) -> SessionRecord? {
            state.withLock { $0.records[key] }
        }

        /// How many writes changed a record.
        package var writes: Int { state.withLock { $0.writes } }

        /// Runs `transform` on the record under `key` (empty when there is none) and stores what it returns,
        /// under the lock.
        fileprivate func update(
            forKey key: String, _ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?
        ) throws(SessionKitError) -> (record: SessionRecord, changed: Bool) {
            try state.withLock { state throws(SessionKitError) in
                let stored = state.records[key] ?? SessionRecord()
                guard let next = try transform(stored) else { return (stored, false) }
                state.records[key] = next
                state.writes += 1
                return (next, true)
            }
        }

        fileprivate func journalEntry(forKey key: String) -> Data? {
            state.withLock { $0.journal[key] }
        }

        fileprivate func setJournalEntry(_ data: Data?, forKey key: String) {
            state.withLock { $0.journal[key] = keepsJournal ? data : nil }
        }
    }

    /// Where the records are.
    package let records: Records
    /// The record's key.
    package let key: String
    /// What the manager holds in memory.
    let held: HeldSession

    /// A coordinator for the record under `key` in `records`, keeping what it reads and writes in `held`.
    package init(records: Records, key: String, held: HeldSession) {
        self.records = records
        self.key = key
        self.held = held
    }

    /// The stored record, held.
    package func read() async throws(SessionKitError) -> SessionRecord {
        hold()
    }

    /// The stored record, held: memory is read without suspending.
    package func readWithoutSuspending() throws(SessionKitError) -> SessionRecord? {
        hold()
    }

    private func hold() -> SessionRecord {
        let record = records.record(forKey: key) ?? SessionRecord()
        held.withLock { $0 = record }
        held.didRead(record)
        return record
    }

    /// Transforms the record under the records' lock, and holds the result.
    nonisolated(nonsending) package func update(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> (record: SessionRecord, changed: Bool)
    {
        let outcome = try records.update(forKey: key, transform)
        held.withLock { $0 = outcome.record }
        return outcome
    }

    /// Nothing to delete: records kept as values are always readable.
    package func deleteIfUnreadable() async throws(SessionKitError) -> Bool { false }

    /// Drops the record held, for the next call to read.
    @discardableResult
    package func takeAnnounced(_ item: VersionedItem) -> Bool {
        held.drop()
        return true
    }

    /// Whether the records keep a journal.
    package var keepsJournal: Bool { records.keepsJournal }

    /// The journal entry for the record.
    package func journalEntry() async throws(SecureStoreError) -> Data? {
        records.journalEntry(forKey: key)
    }

    /// Sets the journal entry for the record aside.
    package func setJournalEntry(_ data: Data?) async throws(SecureStoreError) {
        records.setJournalEntry(data, forKey: key)
    }
}
