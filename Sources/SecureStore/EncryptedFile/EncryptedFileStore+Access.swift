#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension EncryptedFileStore {
    /// The largest value a store file can hold (its length is stored as a 32-bit integer).
    static let maximumValueCount = Int(clamping: UInt32.max) - 1024

    /// Rejects an empty key.
    static func validate(key: String) throws(SecureStoreError) {
        guard !key.isEmpty else {
            throw SecureStoreError(code: .invalidArgument, message: "the item key is empty; pass a non-empty key")
        }
    }

    /// Takes the exclusive lock that every writer of this service's file holds.
    func lockStore() throws(SecureStoreError) -> FileLock {
        try FileLock.acquire(path: filePath + ".lock", timeout: configuration.lockTimeout)
    }

    /// Reads and decrypts all of this service's items; a missing file means no items.
    func readItems() throws(SecureStoreError) -> [String: Data] {
        ItemCodec.dictionary(try readSealed(at: filePath, service: service, describing: "the store file"))
    }

    /// Reads and decrypts the item under `key`, without building a dictionary of all items (see
    /// ``ItemCodec/decode(_:)``): the read that every `sessionctl token` makes.
    func readItem(forKey key: String) throws(SecureStoreError) -> Data? {
        try readSealed(at: filePath, service: service, describing: "the store file").first { $0.key == key }?.value
    }

    /// Reads and decrypts the items sealed for `service` in the file at `path`; a missing file means none.
    func readSealed(at path: String, service: String, describing name: String) throws(SecureStoreError)
        -> [ItemCodec.Item]
    {
        let file: Data?
        do {
            file = try FileIO.readFileIfPresent(path)
        } catch {
            throw SecureStoreError(error, while: "reading \(name)")
        }
        guard let file else { return [] }
        return try Format.open(file, service: service, keys: storeKeys, path: path)
    }

    /// Encrypts `items` and replaces the store file with them, or removes the file when `items` is empty.
    ///
    /// Call only while holding ``lockStore()``: it also removes temporary files of killed writers.
    func writeItems(_ items: [String: Data]) throws(SecureStoreError) {
        AtomicFile.removeStaleTemporaries(of: fileName, in: configuration.folder)
        if let key = items.first(where: { $0.value.count > Self.maximumValueCount })?.key {
            throw SecureStoreError(
                code: .invalidArgument,
                message: "the value for key '\(key)' is larger than the file store's limit of 4 GiB; store less"
            )
        }
        try writeSealed(items, at: filePath, service: service, describing: "the store file")
    }

    /// Seals `items` for `service` and replaces the file at `path` with them, atomically and durably, or
    /// removes the file when there are none.
    func writeSealed(_ items: [String: Data], at path: String, service: String, describing name: String)
        throws(SecureStoreError)
    {
        do {
            if items.isEmpty {
                try AtomicFile.remove(path)
            } else {
                try AtomicFile.write(Format.seal(items, service: service, keys: storeKeys), to: path)
            }
        } catch let error as SystemCallError {
            throw SecureStoreError(error, while: "writing \(name)")
        } catch let error as SecureStoreError {
            throw error
        } catch {
            throw SecureStoreError(code: .ioFailure, message: "writing \(name) '\(path)' failed")
        }
    }
}
