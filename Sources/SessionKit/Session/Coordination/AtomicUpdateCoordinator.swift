package import SecureStore

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The ``SessionCoordinator`` of apps and command-line tools: the record is written in the store's atomic
/// `update` (``SecureStore/AsyncSecureStore/update(forKey:_:)``), whose transform sees the stored record, and a
/// renewal's lease is written in the record itself. Any store works: Keychain, keyring, encrypted file, memory.
///
/// Over a synchronous store (``SecureStore/SecureStore``) it also reads without suspending, for
/// `SessionManager.localCredentials(minTTL:scope:)`.
package struct AtomicUpdateCoordinator: SessionCoordinator {
    /// The store the record lives in.
    let store: any AsyncSecureStore
    /// The synchronous store behind ``store``, when there is one.
    let synchronousStore: (any SecureStore)?
    /// The record's key in the store.
    let key: String
    /// What the manager holds in memory.
    let held: HeldSession

    /// A coordinator for the record under `key` in `store`, keeping what it reads and writes in `held`.
    package init(store: any AsyncSecureStore, key: String, held: HeldSession) {
        self.init(store: store, synchronousStore: nil, key: key, held: held)
    }

    /// A coordinator for the record under `key` in a synchronous `store`, which it also reads without suspending.
    package init(store: any SecureStore, key: String, held: HeldSession) {
        self.init(store: SynchronousStoreAdapter(store), synchronousStore: store, key: key, held: held)
    }

    private init(store: any AsyncSecureStore, synchronousStore: (any SecureStore)?, key: String, held: HeldSession) {
        self.store = store
        self.synchronousStore = synchronousStore
        self.key = key
        self.held = held
    }

    /// Reads the record and holds it.
    package func read() async throws(SessionKitError) -> SessionRecord {
        let data: Data?
        do {
            data = try await store.data(forKey: key)
        } catch {
            throw held.storeFailure(error)
        }
        return try hold(data)
    }

    /// Reads a synchronous store's record and holds it; `nil` for an asynchronous store.
    package func readWithoutSuspending() throws(SessionKitError) -> SessionRecord? {
        guard let synchronousStore else { return nil }
        let data: Data?
        do {
            data = try synchronousStore.data(forKey: key)
        } catch {
            throw held.storeFailure(error)
        }
        return try hold(data)
    }

    private func hold(_ data: Data?) throws(SessionKitError) -> SessionRecord {
        let record = try SessionRecord.stored(data)
        held.forgetHandedOver()
        held.withLock { $0 = record }
        held.didRead(record)
        return record
    }

    /// Runs `transform` in the store's atomic update and holds the record it leaves.
    nonisolated(nonsending) package func update(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> (record: SessionRecord, changed: Bool)
    {
        var outcome = (record: SessionRecord(), changed: false)
        do {
            try await store.update(forKey: key) { data in
                let stored = try SessionRecord.stored(data)
                guard let next = try transform(stored) else {
                    outcome = (stored, false)
                    throw Unchanged()
                }
                outcome = (next, true)
                return try next.storedData()
            }
        } catch is Unchanged {
            // The transform chose not to write.
        } catch let error as SessionKitError {
            throw error
        } catch let error as SecureStoreError {
            throw held.storeFailure(error)
        } catch {
            throw SessionKitError(
                code: .storeUnavailable, message: "the session could not be written", underlyingError: error)
        }
        held.forgetHandedOver()
        held.withLock { $0 = outcome.record }
        return outcome
    }

    /// A record another manager of the session read just now and handed over (``HeldSession/handOver(_:)``), once:
    /// the next renewal starts from it, and its lease is written only if the stored record is still at its
    /// generation (the atomic update compares them), so a record changed since costs a refusal, never a wrong write.
    /// Otherwise `nil`: without versions from the store, only a read tells what is current.
    package func knownRecord() -> SessionRecord? {
        held.takeHandedOver()
    }

    /// See ``SecureStore/AsyncSecureStore/deleteSessionIfUnreadable(forKey:held:)``.
    package func deleteIfUnreadable() async throws(SessionKitError) -> Bool {
        try await store.deleteSessionIfUnreadable(forKey: key, held: held)
    }

    /// Drops the record held: an update's store does not version its items, so nothing says whether an
    /// announced one is newer.
    @discardableResult
    package func takeAnnounced(_ item: VersionedItem) -> Bool {
        held.drop()
        return true
    }

    /// Whether the store keeps a journal.
    package var keepsJournal: Bool { store.keepsJournal }

    /// The store's journal entry for the record.
    package func journalEntry() async throws(SecureStoreError) -> Data? {
        try await store.journalEntry(forKey: key)
    }

    /// Writes the store's journal entry for the record.
    package func setJournalEntry(_ data: Data?) async throws(SecureStoreError) {
        try await store.setJournalEntry(data, forKey: key)
    }
}

/// Thrown inside a store update to leave the item as it was.
private struct Unchanged: Error {}
