#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension EncryptedFileStore: SecureStoreJournal {
    /// The path of the journal beside the store file: `<file>.journal`.
    var journalPath: String { filePath + ".journal" }

    /// The service name bound into the journal's authenticated data, so that the journal and the store
    /// file cannot be swapped for each other.
    private var journalService: String { "journal:" + service }

    /// The entry set aside for `key`, or `nil` when there is none.
    public func journalEntry(forKey key: String) throws(SecureStoreError) -> Data? {
        try Self.validate(key: key)
        return try readJournal()[key]
    }

    /// Sets `data` aside for `key` without taking the store's lock: written atomically and durably like the
    /// store file (0600, temporary file and `rename`). Two processes writing the journal at the same
    /// instant keep the entries of the last one.
    public func setJournalEntry(_ data: Data?, forKey key: String) throws(SecureStoreError) {
        try Self.validate(key: key)
        var entries: [String: Data]
        do {
            entries = try readJournal()
        } catch  where error.code == .corrupted || error.code == .keyMismatch {
            entries = [:]  // A damaged journal holds nothing that can be used; replace it.
        }
        guard entries[key] != data else { return }
        entries[key] = data
        try writeSealed(entries, at: journalPath, service: journalService, describing: "the store's journal")
    }

    private func readJournal() throws(SecureStoreError) -> [String: Data] {
        ItemCodec.dictionary(
            try readSealed(at: journalPath, service: journalService, describing: "the store's journal"))
    }
}
