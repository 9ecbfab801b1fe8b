import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An ``EncryptedFileStore``'s key in the kernel keyring (``EncryptedFileStore/KeySource/kernelKeyring``): one
/// `user` key per store folder and service, 32 random bytes, never on disk.
struct KernelKeyringKey {
    let keyring: KernelKeyring
    /// The key's description: `sessionkit:<service>:<the folder's absolute path>`.
    let description: String
    let folder: String
    let storeFile: String

    init(service: String, folder: String) throws(SecureStoreError) {
        keyring = try KernelKeyring.shared.get()
        self.folder = StoreFolder.standardizedPath(folder)
        description = "sessionkit:\(service):\(self.folder)"
        storeFile = self.folder + "/" + StoreFolder.fileName(forService: service)
    }

    /// The key, made when there is none and no store was written with one: under the folder's key lock, so two
    /// processes starting at once share one key.
    ///
    /// - Throws: ``SecureStoreError/Code/unavailable`` when the store file exists but its key is gone from the
    ///   kernel keyring (a restart, or the user had no process left): the data cannot be read again, and the message
    ///   says to remove the file and sign in again.
    func loadOrCreate() throws(SecureStoreError) -> SymmetricKey {
        if let key = try load() { return key }
        let lock = try FileLock.acquire(path: folder + "/" + KeyringKey.lockFileName, timeout: .seconds(10))
        defer { lock.unlock() }
        if let key = try load() { return key }
        guard !FileManager.default.fileExists(atPath: storeFile) else {
            throw SecureStoreError(
                code: .unavailable,
                message: "the store \(storeFile) was encrypted with a key the kernel keyring no longer holds (it "
                    + "keeps keys until a restart, or until the user has no process left); its data is lost: "
                    + "remove that file and sign in again")
        }
        try keyring.write(description, SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        guard let key = try load() else {
            throw SecureStoreError(
                code: .unavailable, message: "the store key vanished from the kernel keyring right after it was made")
        }
        return key
    }

    /// The key, or `nil` when the kernel keyring holds none.
    func load() throws(SecureStoreError) -> SymmetricKey? {
        guard let bytes = try keyring.read(description) else { return nil }
        guard bytes.count == KeyFile.byteCount else {
            throw SecureStoreError(
                code: .corrupted,
                message: "the kernel keyring's key '\(description)' has \(bytes.count) bytes, not "
                    + "\(KeyFile.byteCount); remove it (keyctl purge user '\(description)') and sign in again")
        }
        return SymmetricKey(data: bytes)
    }
}
