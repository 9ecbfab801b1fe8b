#if canImport(Security)
    public import Foundation
    import Security
    import Synchronization

    /// A ``SecureStore`` over the Apple keychain: one generic-password item per key
    /// (`kSecClassGenericPassword`, `kSecAttrService` = ``service``, `kSecAttrAccount` = the key).
    ///
    /// A locked device (`errSecInteractionNotAllowed`) throws ``SecureStoreError/Code/unavailable``; keep the
    /// session and try again after unlock. A missing item (`errSecItemNotFound`) reads as `nil`.
    ///
    /// ``update(forKey:_:)`` is atomic against other callers of this process that use any `KeychainStore`
    /// (they share one lock); across processes, atomicity is only what the keychain itself gives each call.
    ///
    /// This file is compiled on Apple platforms only and is untested on Linux, where it cannot be built.
    public struct KeychainStore: SecureStore {
        /// When the keychain lets the app read an item (`kSecAttrAccessible`).
        public struct Accessibility: Hashable, Sendable {
            enum Storage: Hashable, Sendable {
                case afterFirstUnlockThisDeviceOnly
                case afterFirstUnlock
                case whenUnlockedThisDeviceOnly
                case whenUnlocked
                case whenPasscodeSetThisDeviceOnly
            }

            let storage: Storage

            /// After the first unlock since boot, on this device only (the default; works in the background).
            public static let afterFirstUnlockThisDeviceOnly = Accessibility(storage: .afterFirstUnlockThisDeviceOnly)
            /// After the first unlock since boot; may move to a new device in an encrypted backup.
            public static let afterFirstUnlock = Accessibility(storage: .afterFirstUnlock)
            /// Only while the device is unlocked, on this device only.
            public static let whenUnlockedThisDeviceOnly = Accessibility(storage: .whenUnlockedThisDeviceOnly)
            /// Only while the device is unlocked; may move to a new device in an encrypted backup.
            public static let whenUnlocked = Accessibility(storage: .whenUnlocked)
            /// Only while unlocked and only if a passcode is set, on this device only.
            public static let whenPasscodeSetThisDeviceOnly = Accessibility(storage: .whenPasscodeSetThisDeviceOnly)

            var attribute: CFString {
                switch storage {
                case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
                case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
                case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
                case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
                case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
                }
            }
        }

        /// The service whose items this store holds (`kSecAttrService`).
        public let service: String
        /// When the items can be read; applied to items this store writes.
        public let accessibility: Accessibility
        /// The keychain access group shared with other apps of the same team, or `nil` for the default.
        public let accessGroup: String?
        /// Whether items sync through iCloud Keychain (`kSecAttrSynchronizable`).
        public let isSynchronizable: Bool

        /// Serializes ``update(forKey:_:)`` within this process.
        private static let updateLock = Mutex(())

        /// Creates a store for `service`.
        public init(
            service: String,
            accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
            accessGroup: String? = nil,
            isSynchronizable: Bool = false
        ) {
            self.service = service
            self.accessibility = accessibility
            self.accessGroup = accessGroup
            self.isSynchronizable = isSynchronizable
        }

        /// Returns the data stored under `key`, or `nil` when there is none.
        public func data(forKey key: String) throws(SecureStoreError) -> Data? {
            var query = try baseQuery(key: key)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            try Self.check(status, "reading the item '\(key)'")
            guard let data = result as? Data else {
                throw SecureStoreError(code: .corrupted, message: "the keychain item '\(key)' holds no data; delete it")
            }
            return data
        }

        /// Stores `data` under `key`, replacing any earlier value.
        public func setData(_ data: Data, forKey key: String) throws(SecureStoreError) {
            let query = try baseQuery(key: key)
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: accessibility.attribute,
            ]
            var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                status = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
            }
            try Self.check(status, "writing the item '\(key)'")
        }

        /// Removes the item under `key`. Removing a missing item is not an error.
        public func deleteItem(forKey key: String) throws(SecureStoreError) {
            let query = try baseQuery(key: key)
            let status = SecItemDelete(query as CFDictionary)
            if status == errSecItemNotFound { return }
            try Self.check(status, "deleting the item '\(key)'")
        }

        /// Removes every item of this service (and access group), and only those.
        public func deleteAll() throws(SecureStoreError) {
            let query = try baseQuery(key: nil)
            let status = SecItemDelete(query as CFDictionary)
            if status == errSecItemNotFound { return }
            try Self.check(status, "deleting the items of service '\(service)'")
        }

        /// The keys of this service's items, sorted.
        public func keys() throws(SecureStoreError) -> [String] {
            var query = try baseQuery(key: nil)
            query[kSecReturnAttributes as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitAll
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return [] }
            try Self.check(status, "listing the items of service '\(service)'")
            let items = result as? [[String: Any]] ?? []
            return items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
        }

        /// Reads the item under `key`, passes it to `transform`, and stores what it returns (`nil` deletes
        /// the item), serialized with every other `KeychainStore` update in this process. `transform` must
        /// not call `update` on any `KeychainStore`: the in-process lock is not recursive.
        ///
        /// - Returns: The value that `transform` returned, as now stored.
        @discardableResult
        public func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
            try Self.updateLock.withLock { _ throws -> Data? in
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
    }
#endif
