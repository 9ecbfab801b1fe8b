import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A ``SecureStore`` over the Apple keychain: one generic-password item per key
/// (`kSecClassGenericPassword`, `kSecAttrService` = ``service``, `kSecAttrAccount` = the key).
///
/// A locked device (`errSecInteractionNotAllowed`, such as before the first unlock after a reboot) throws
/// ``SecureStoreError/Code/unavailable``: keep the session and try again after unlock; it never reads as
/// "signed out". A missing item (`errSecItemNotFound`) reads as `nil`.
///
/// ``update(forKey:_:)`` is atomic against other callers in this process (they share one lock). Across
/// processes, the keychain makes each call atomic but not a read followed by a write: give the processes
/// that share the items (an app and its extensions, through ``accessGroup``) one ``crossProcessLock`` file
/// in their shared App Group container, and `update` holds an advisory lock on it across its read and
/// write. `SessionManager` takes its renewal lease with `update`, so with that file an app and its
/// extensions never spend one refresh token twice.
///
/// The public initializer exists on Apple platforms only. The logic here runs on every platform: on Linux it
/// is tested against a model of the keychain's documented semantics (`KeychainModel`, SecureStoreTesting);
/// only the thin binding to `SecItem*` (`SecurityFrameworkBackend`) needs an Apple run.
public struct KeychainStore: SecureStore {
    /// The service whose items this store holds (`kSecAttrService`).
    public let service: String
    /// When the items can be read; applied to items this store writes.
    public let accessibility: Accessibility
    /// The keychain access group shared with other apps or extensions of the same team, or `nil` for the
    /// app's default group.
    public let accessGroup: String?
    /// Whether items sync through iCloud Keychain (`kSecAttrSynchronizable`).
    public let isSynchronizable: Bool
    /// The lock file that makes ``update(forKey:_:)`` atomic across processes, or `nil`.
    public let crossProcessLock: URL?

    /// How long ``update(forKey:_:)`` waits for another process's hold on ``crossProcessLock``.
    public static let crossProcessLockTimeout: Duration = .seconds(10)

    let backend: any KeychainBackend

    /// Serializes ``update(forKey:_:)`` within this process.
    private static let updateLock = Mutex(())

    /// Creates a store for `service` over the keychain calls of `backend`.
    package init(
        service: String,
        accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
        accessGroup: String? = nil,
        isSynchronizable: Bool = false,
        crossProcessLock: URL? = nil,
        backend: any KeychainBackend
    ) {
        self.service = service
        self.accessibility = accessibility
        self.accessGroup = accessGroup
        self.isSynchronizable = isSynchronizable
        self.crossProcessLock = crossProcessLock
        self.backend = backend
    }

    /// Returns the data stored under `key`, or `nil` when there is none.
    public func data(forKey key: String) throws(SecureStoreError) -> Data? {
        switch backend.copyData(matching: try query(key: key)) {
        case .success(let data): return data
        case .failure(.itemNotFound): return nil
        case .failure(let status): throw failure(status, "reading the item '\(key)'")
        }
    }

    /// Stores `data` under `key`, replacing any earlier value.
    ///
    /// Updates the item, adds it when there is none, and updates it after all when another process added it
    /// in between (`errSecDuplicateItem`).
    public func setData(_ data: Data, forKey key: String) throws(SecureStoreError) {
        let query = try query(key: key)
        var status = backend.update(query, data: data, accessibility: accessibility)
        if status == .itemNotFound {
            status = backend.add(query, data: data, accessibility: accessibility)
            if status == .duplicateItem {
                status = backend.update(query, data: data, accessibility: accessibility)
            }
        }
        guard status == .success else { throw failure(status, "writing the item '\(key)'") }
    }

    /// Removes the item under `key`. Removing a missing item is not an error.
    public func deleteItem(forKey key: String) throws(SecureStoreError) {
        let status = backend.delete(try query(key: key))
        guard status == .success || status == .itemNotFound else {
            throw failure(status, "deleting the item '\(key)'")
        }
    }

    /// Removes every item of this service (and access group), and only those.
    public func deleteAll() throws(SecureStoreError) {
        let status = backend.delete(try query(key: nil))
        guard status == .success || status == .itemNotFound else {
            throw failure(status, "deleting the items of service '\(service)'")
        }
    }

    /// The keys of this service's items, sorted.
    public func keys() throws(SecureStoreError) -> [String] {
        switch backend.copyAccounts(matching: try query(key: nil)) {
        case .success(let accounts): return accounts.sorted()
        case .failure(.itemNotFound): return []
        case .failure(let status): throw failure(status, "listing the items of service '\(service)'")
        }
    }

    /// Reads the item under `key`, passes it to `transform`, and stores what it returns (`nil` deletes
    /// the item), serialized with every other `KeychainStore` update in this process and, with a
    /// ``crossProcessLock``, with those of every process that uses the same file. `transform` must not call
    /// `update` on any `KeychainStore`: the locks are not recursive.
    ///
    /// - Returns: The value that `transform` returned, as now stored.
    @discardableResult
    public func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
        try Self.updateLock.withLock { _ throws -> Data? in
            let held = try crossProcessLock.map { url throws(SecureStoreError) in
                try FileLock.acquire(path: url.path, timeout: Self.crossProcessLockTimeout)
            }
            defer { held?.unlock() }
            let old = try data(forKey: key)
            let new = try transform(old)
            if let new {
                try setData(new, forKey: key)
            } else {
                try deleteItem(forKey: key)
            }
            return new
        }
    }

    /// The attributes that select this store's items and, when `key` is given, the one under `key`.
    func query(key: String?) throws(SecureStoreError) -> KeychainQuery {
        guard !service.isEmpty else {
            throw SecureStoreError(code: .invalidArgument, message: "the service name is empty; pass a non-empty one")
        }
        if let key, key.isEmpty {
            throw SecureStoreError(code: .invalidArgument, message: "the item key is empty; pass a non-empty key")
        }
        return KeychainQuery(
            service: service, account: key, accessGroup: accessGroup, synchronizable: isSynchronizable)
    }
}
