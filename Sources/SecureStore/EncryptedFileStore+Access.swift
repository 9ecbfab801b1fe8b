import Foundation

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
        let file: Data?
        do {
            file = try FileIO.readFileIfPresent(filePath)
        } catch {
            throw SecureStoreError(error, while: "reading the store file")
        }
        guard let file else { return [:] }
        return try Format.open(file, service: service, keys: storeKeys, path: filePath)
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
        do {
            if items.isEmpty {
                try AtomicFile.remove(filePath)
            } else {
                try AtomicFile.write(Format.seal(items, service: service, keys: storeKeys), to: filePath)
            }
        } catch let error as SystemCallError {
            throw SecureStoreError(error, while: "writing the store file")
        } catch let error as SecureStoreError {
            throw error
        } catch {
            throw SecureStoreError(code: .ioFailure, message: "writing the store file '\(filePath)' failed")
        }
    }
}
