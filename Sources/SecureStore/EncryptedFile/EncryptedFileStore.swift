#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A ``SecureStore`` that keeps each service's items in one AES-256-GCM encrypted file, on any platform.
///
/// ```swift
/// let store = try EncryptedFileStore(service: "com.example.app")
/// try store.setString(refreshToken, forKey: "refresh_token")
/// ```
///
/// - Files: the folder (``Configuration/folder``) holds `<name>.<hash>.store` per service, where `<name>` is
///   the service with every character outside `A-Z a-z 0-9 - _` replaced by `_` and `<hash>` comes from
///   SHA-256 of the service, so no service name can reach outside the folder. Beside it are
///   `<file>.lock` (an empty lock file, never deleted) and, only while a write runs, `<file>.tmp-<random>`.
/// - Modes: the folder is 0700 and every file 0600, set with `fchmod` whatever the umask. An existing
///   folder or store file with a looser mode is tightened when the store is created (the data is encrypted,
///   so nothing has leaked); a looser key file is refused (see ``KeySource/keyFile(atPath:)``).
/// - Encryption: see ``KeySource``; the file header and the service name are authenticated, so a file
///   copied from another service, tampered with or truncated throws ``SecureStoreError/Code/corrupted``, and
///   a file written with another key throws ``SecureStoreError/Code/keyMismatch``.
/// - Writes replace the file atomically and durably (temporary file, `fsync`, `rename`, `fsync` of the
///   folder): a crash leaves the old items or the new ones. Every write holds an exclusive `flock` on the
///   lock file for its read-modify-write, so writers in several threads and processes lose nothing.
///   Temporary files left by a killed writer are removed by the next write.
/// - Reads take no lock: they read the whole file, which `rename` always replaces in one step.
///
/// Every call blocks its thread for file I/O, `fsync` and, for writes, up to ``Configuration/lockTimeout``
/// waiting for the lock; call it off the main actor. A `transform` passed to ``update(forKey:_:)`` runs
/// while the lock is held; it must not use the store (a nested write waits for the lock and times out).
public struct EncryptedFileStore: SecureStore {
    /// The service whose items this store holds.
    public let service: String
    /// The folder, key source and lock timeout this store was created with.
    public let configuration: Configuration
    /// The path of this service's store file.
    public let filePath: String
    let fileName: String
    let storeKeys: StoreKeys

    /// Opens the store of `service`, creating its folder (and key file, if that is the key source) when
    /// missing, and tightening the modes of an existing folder and store file.
    ///
    /// - Throws: ``SecureStoreError/Code/invalidArgument`` for an empty service or folder or a key that is
    ///   not 256 bits; ``SecureStoreError/Code/permissionDenied`` when the folder or key file cannot be used.
    public init(service: String, configuration: Configuration = Configuration()) throws(SecureStoreError) {
        guard !service.isEmpty else {
            throw SecureStoreError(code: .invalidArgument, message: "the service name is empty; pass a non-empty one")
        }
        guard !configuration.folder.isEmpty else {
            throw SecureStoreError(code: .invalidArgument, message: "the store folder path is empty; pass a folder")
        }
        self.service = service
        self.configuration = configuration
        self.fileName = StoreFolder.fileName(forService: service)
        self.filePath = configuration.folder + "/" + fileName
        try StoreFolder.prepare(configuration.folder, dataFile: filePath)
        self.storeKeys = try configuration.keySource.load(folder: configuration.folder, service: service)
    }

    /// Returns the data stored under `key`, or `nil` when there is none.
    public func data(forKey key: String) throws(SecureStoreError) -> Data? {
        try Self.validate(key: key)
        return try readItem(forKey: key)
    }

    /// Stores `data` under `key`, replacing any earlier value.
    public func setData(_ data: Data, forKey key: String) throws(SecureStoreError) {
        try Self.validate(key: key)
        let lock = try lockStore()
        defer { lock.unlock() }
        var items = try readItems()
        items[key] = data
        try writeItems(items)
    }

    /// Removes the item under `key`. Removing a missing item is not an error.
    public func deleteItem(forKey key: String) throws(SecureStoreError) {
        try Self.validate(key: key)
        let lock = try lockStore()
        defer { lock.unlock() }
        var items = try readItems()
        guard items.removeValue(forKey: key) != nil else { return }
        try writeItems(items)
    }

    /// Removes this service's store file (and stale temporary files), leaving other services' files alone.
    ///
    /// It does not read the file first, so it also clears a damaged file or one written with another key.
    /// Its journal (see ``SecureStoreJournal``) goes with it.
    /// The empty lock file stays (see the type's documentation).
    public func deleteAll() throws(SecureStoreError) {
        let lock = try lockStore()
        defer { lock.unlock() }
        try writeItems([:])
        do {
            try AtomicFile.remove(journalPath)
        } catch {
            throw SecureStoreError(error, while: "removing the store's journal")
        }
    }

    /// The keys of this service's items, sorted.
    public func keys() throws(SecureStoreError) -> [String] {
        try readItems().keys.sorted()
    }

    /// Atomically reads the item under `key`, passes it to `transform`, and stores what it returns
    /// (`nil` deletes the item), holding the store lock across threads and processes meanwhile.
    ///
    /// - Returns: The value that `transform` returned, as now stored.
    @discardableResult
    public func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
        try Self.validate(key: key)
        let lock = try lockStore()
        defer { lock.unlock() }
        var items = try readItems()
        let old = items[key]
        let new = try transform(old)
        guard new != old else { return new }
        items[key] = new
        try writeItems(items)
        return new
    }
}
