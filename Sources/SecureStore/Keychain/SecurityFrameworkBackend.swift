#if canImport(Security)
    public import Foundation
    import Security

    extension KeychainStore {
        /// Creates a store for `service` in the system keychain.
        ///
        /// - Parameters:
        ///   - accessibility: When the items can be read; the default works in the background after the first
        ///     unlock since boot.
        ///   - accessGroup: A keychain access group of the app's entitlements, to share the items with its
        ///     extensions or other apps of the team.
        ///   - isSynchronizable: Whether the items sync through iCloud Keychain.
        ///   - crossProcessLock: A file in a folder every process that shares the items can reach (the App
        ///     Group container), to make ``update(forKey:_:)`` atomic across them; created with mode 0600.
        public init(
            service: String,
            accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
            accessGroup: String? = nil,
            isSynchronizable: Bool = false,
            crossProcessLock: URL? = nil
        ) {
            self.init(
                service: service, accessibility: accessibility, accessGroup: accessGroup,
                isSynchronizable: isSynchronizable, crossProcessLock: crossProcessLock,
                backend: SecurityFrameworkBackend())
        }
    }

    /// The binding of ``KeychainBackend`` to the Security framework: dictionaries of `kSec…` constants in,
    /// `OSStatus` out, and nothing else. This is the only keychain code that needs an Apple run to be proven.
    struct SecurityFrameworkBackend: KeychainBackend {
        func copyData(matching query: KeychainQuery) -> Result<Data, KeychainStatus> {
            var attributes = Self.attributes(of: query)
            attributes[kSecReturnData as String] = true
            attributes[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = Self.status(SecItemCopyMatching(attributes as CFDictionary, &result))
            guard status == .success else { return .failure(status) }
            guard let data = result as? Data else { return .failure(.other(errSecInternalError)) }
            return .success(data)
        }

        func copyAccounts(matching query: KeychainQuery) -> Result<[String], KeychainStatus> {
            var attributes = Self.attributes(of: query)
            attributes[kSecReturnAttributes as String] = true
            attributes[kSecMatchLimit as String] = kSecMatchLimitAll
            var result: CFTypeRef?
            let status = Self.status(SecItemCopyMatching(attributes as CFDictionary, &result))
            guard status == .success else { return .failure(status) }
            let items = result as? [[String: Any]] ?? []
            return .success(items.compactMap { $0[kSecAttrAccount as String] as? String })
        }

        func add(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility) -> KeychainStatus {
            var attributes = Self.attributes(of: query)
            attributes[kSecValueData as String] = data
            attributes[kSecAttrAccessible as String] = Self.constant(accessibility)
            return Self.status(SecItemAdd(attributes as CFDictionary, nil))
        }

        func update(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility)
            -> KeychainStatus
        {
            let changes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: Self.constant(accessibility),
            ]
            return Self.status(SecItemUpdate(Self.attributes(of: query) as CFDictionary, changes as CFDictionary))
        }

        func delete(_ query: KeychainQuery) -> KeychainStatus {
            Self.status(SecItemDelete(Self.attributes(of: query) as CFDictionary))
        }

        func message(for status: KeychainStatus) -> String? {
            SecCopyErrorMessageString(Self.code(of: status), nil) as String?
        }

        private static func attributes(of query: KeychainQuery) -> [String: Any] {
            var attributes: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: query.service,
                kSecUseDataProtectionKeychain as String: true,
            ]
            if let account = query.account { attributes[kSecAttrAccount as String] = account }
            if let group = query.accessGroup { attributes[kSecAttrAccessGroup as String] = group }
            if query.synchronizable { attributes[kSecAttrSynchronizable as String] = true }
            return attributes
        }

        private static func constant(_ accessibility: KeychainStore.Accessibility) -> CFString {
            switch accessibility.storage {
            case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
            case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
            case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
            }
        }

        private static func status(_ code: OSStatus) -> KeychainStatus {
            switch code {
            case errSecSuccess: .success
            case errSecItemNotFound: .itemNotFound
            case errSecDuplicateItem: .duplicateItem
            case errSecInteractionNotAllowed: .interactionNotAllowed
            case errSecMissingEntitlement: .missingEntitlement
            case errSecAuthFailed: .authFailed
            case errSecNoAccessForItem: .noAccessForItem
            case errSecParam: .invalidParameter
            default: .other(code)
            }
        }

        private static func code(of status: KeychainStatus) -> OSStatus {
            switch status {
            case .success: errSecSuccess
            case .itemNotFound: errSecItemNotFound
            case .duplicateItem: errSecDuplicateItem
            case .interactionNotAllowed: errSecInteractionNotAllowed
            case .missingEntitlement: errSecMissingEntitlement
            case .authFailed: errSecAuthFailed
            case .noAccessForItem: errSecNoAccessForItem
            case .invalidParameter: errSecParam
            case .other(let code): code
            }
        }
    }
#endif
