import Crypto
import Foundation

/// The 256-bit key of an ``EncryptedFileStore`` kept in the Secret Service (see
/// ``EncryptedFileStore/KeySource/secretService(_:)``).
struct KeyringKey {
    /// The keyring store that holds the key: service `<service>.file-key`, one item per folder.
    let store: SecretServiceStore
    /// The item's key: the store folder's absolute, standardized path.
    let account: String

    init(service: String, folder: String, configuration: SecretServiceStore.Configuration) {
        store = SecretServiceStore(service: service + ".file-key", configuration: configuration)
        account = URL(fileURLWithPath: folder).standardizedFileURL.path
    }

    /// Whether the keyring holds a key for this store (throws when the keyring cannot be used).
    func exists() throws(SecureStoreError) -> Bool {
        try store.hasItem(forKey: account)
    }

    /// Reads the key, creating a random one when there is none.
    ///
    /// Creation reads the key back after writing it, so that of two processes racing to create it both
    /// end up with the one the keyring kept (a race that loses a key needs both writes to land between the
    /// other's write and read-back).
    func loadOrCreate() throws(SecureStoreError) -> SymmetricKey {
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

    private func load() throws(SecureStoreError) -> SymmetricKey? {
        guard let bytes = try store.data(forKey: account) else { return nil }
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
