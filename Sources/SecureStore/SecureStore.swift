#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A secure key-value store for small secrets, in the spirit of SimpleKeychain.
///
/// A store holds the items of one *service* (for example `"com.example.app"`): strings and data under
/// string keys. Every backend has the same behaviour, checked by the conformance suite in
/// `SecureStoreTesting` (`SecureStoreConformance`):
///
/// - A missing item is `nil`, never an error.
/// - A store that cannot be read right now (a locked keychain, an unreadable file, a lock held too long)
///   throws ``SecureStoreError`` with code ``SecureStoreError/Code/unavailable``. Callers must treat
///   that as "try again later", never as "signed out".
/// - Damaged data (a tampered or truncated file) throws ``SecureStoreError/Code/corrupted``; it is
///   never read as empty.
/// - ``deleteAll()`` removes only this service's items.
///
/// Backends: `KeychainStore` (Apple platforms), ``SecretServiceStore`` (the Linux keyring),
/// ``EncryptedFileStore`` (any platform) and ``MemoryStore`` (tests and previews). On Linux,
/// ``StoreSelection`` picks the default: an encrypted file store whose key the keyring holds.
public protocol SecureStore: Sendable {
    /// The service whose items this store holds.
    var service: String { get }

    /// Returns the data stored under `key`, or `nil` when there is none.
    func data(forKey key: String) throws(SecureStoreError) -> Data?

    /// Stores `data` under `key`, replacing any earlier value.
    func setData(_ data: Data, forKey key: String) throws(SecureStoreError)

    /// Removes the item under `key`. Removing a missing item is not an error.
    func deleteItem(forKey key: String) throws(SecureStoreError)

    /// Removes every item of this service, and only this service's items.
    func deleteAll() throws(SecureStoreError)

    /// The keys of this service's items, sorted.
    func keys() throws(SecureStoreError) -> [String]

    /// Atomically reads the item under `key`, passes it to `transform`, and stores what it returns
    /// (`nil` deletes the item). No other writer of this store, in this process or, where the backend
    /// allows it, in another process, can change the item between the read and the write.
    ///
    /// An error thrown by `transform` propagates unchanged and leaves the item as it was.
    ///
    /// - Returns: The value that `transform` returned, as now stored.
    @discardableResult
    func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data?
}

extension SecureStore {
    /// Returns `true` when an item is stored under `key`.
    public func hasItem(forKey key: String) throws(SecureStoreError) -> Bool {
        try data(forKey: key) != nil
    }

    /// Returns the UTF-8 string stored under `key`, or `nil` when there is none.
    ///
    /// - Throws: ``SecureStoreError/Code/corrupted`` when the item is not valid UTF-8.
    public func string(forKey key: String) throws(SecureStoreError) -> String? {
        guard let data = try data(forKey: key) else { return nil }
        guard let string = String(data: data, encoding: .utf8) else {
            throw SecureStoreError(
                code: .corrupted,
                message: "the item under key '\(key)' is not a UTF-8 string; read it with data(forKey:)"
            )
        }
        return string
    }

    /// Stores `string` as UTF-8 under `key`, replacing any earlier value.
    public func setString(_ string: String, forKey key: String) throws(SecureStoreError) {
        try setData(Data(utf8Of: string), forKey: key)
    }
}
