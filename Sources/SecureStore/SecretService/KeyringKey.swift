import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The 256-bit key of an ``EncryptedFileStore`` kept in the Secret Service (see
/// ``EncryptedFileStore/KeySource/secretService(_:)``).
struct KeyringKey {
    /// The keyring store that holds the key: service `<service>.file-key`, one item per folder.
    let store: SecretServiceStore
    /// The item's key: the store folder's absolute, standardized path.
    let account: String
    /// Seconds the key is also kept in the kernel keyring, if at all.
    let cacheTimeout: UInt32?

    init(service: String, folder: String, configuration: SecretServiceStore.Configuration) {
        store = SecretServiceStore(service: service + ".file-key", configuration: configuration)
        account = StoreFolder.standardizedPath(folder)
        cacheTimeout = configuration.kernelCacheTimeout.map { UInt32(clamping: $0.components.seconds) }
    }

    /// The key's description in the kernel keyring's cache.
    var cacheDescription: String { "sessionkit-cache:\(store.service):\(account)" }

    /// Reads the key, creating a random one when there is none.
    ///
    /// Creation reads the key back after writing it, so that of two processes racing to create it both
    /// end up with the one the keyring kept (a race that loses a key needs both writes to land between the
    /// other's write and read-back).
    /// The key, created when there is none yet. Creation happens under the store folder's key lock, and looks
    /// again once the lock is held: two processes using the keyring for the first time at once would otherwise
    /// each write a key, and the store written with the losing one could never be read again.
    func loadOrCreate() throws(SecureStoreError) -> SymmetricKey {
        if let key = try load() { return key }
        let lock = try FileLock.acquire(path: account + "/" + Self.lockFileName, timeout: .seconds(10))
        defer { lock.unlock() }
        if let key = try load() { return key }
        try store.setData(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }, forKey: account)
        guard let key = try load() else {
            throw SecureStoreError(
                code: .unavailable,
                message: "the store key vanished from the keyring right after it was created; try again"
            )
        }
        return key
    }

    /// The lock file, in the store folder, that serializes creating the folder's keyring key.
    static let lockFileName = "keyring-key.lock"

    /// The key, or `nil` when the keyring holds none for this folder yet.
    func load() throws(SecureStoreError) -> SymmetricKey? {
        // The kernel keyring's copy first: no D-Bus round trip within the cache's time. A failure there only means
        // asking the keyring itself, and not caching at all when the kernel keyring cannot be read (its system calls
        // denied, as in a container): the cache is an optimisation, never a reason to fail.
        var kernel = cacheTimeout.flatMap { _ in try? KernelKeyring.shared.get() }
        if let cache = kernel {
            let read = Result { () throws(SecureStoreError) in try cache.read(cacheDescription) }
            switch read {
            case .success(let cached?) where cached.count == KeyFile.byteCount: return SymmetricKey(data: cached)
            case .success: break
            case .failure: kernel = nil
            }
        }
        guard let bytes = try store.data(forKey: account) else { return nil }
        if let kernel, let cacheTimeout, bytes.count == KeyFile.byteCount, cacheTimeout > 0 {
            try? kernel.write(cacheDescription, bytes, timeout: cacheTimeout)
        }
        guard bytes.count == KeyFile.byteCount else {
            throw SecureStoreError(
                code: .corrupted,
                message: "the store key in the keyring (service '\(store.service)', account '\(account)') has "
                    + "\(bytes.count) bytes, not \(KeyFile.byteCount); delete it and the store files it encrypts"
            )
        }
        return SymmetricKey(data: bytes)
    }
}
