#if canImport(Security)
    import Foundation
    import Security

    extension KeychainStore {
        /// The attributes that identify this store's items: class, service, access group, synchronizable
        /// flag and, when `key` is given, the account.
        func baseQuery(key: String?) throws(SecureStoreError) -> [String: Any] {
            guard !service.isEmpty else {
                throw SecureStoreError(
                    code: .invalidArgument, message: "the service name is empty; pass a non-empty one")
            }
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecUseDataProtectionKeychain as String: true,
            ]
            if let key {
                guard !key.isEmpty else {
                    throw SecureStoreError(
                        code: .invalidArgument, message: "the item key is empty; pass a non-empty key")
                }
                query[kSecAttrAccount as String] = key
            }
            if let accessGroup {
                query[kSecAttrAccessGroup as String] = accessGroup
            }
            if isSynchronizable {
                query[kSecAttrSynchronizable as String] = true
            }
            return query
        }

        /// Throws the store error for a failed keychain call; does nothing for `errSecSuccess`.
        static func check(_ status: OSStatus, _ action: String) throws(SecureStoreError) {
            guard status != errSecSuccess else { return }
            let reason = (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
            let underlying = NSError(domain: NSOSStatusErrorDomain, code: Int(status))
            switch status {
            case errSecInteractionNotAllowed:
                throw SecureStoreError(
                    code: .unavailable,
                    message: "\(action) failed: the keychain is locked (\(reason)); try again after the device "
                        + "is unlocked",
                    underlyingError: underlying
                )
            case errSecMissingEntitlement, errSecAuthFailed, errSecNoAccessForItem:
                throw SecureStoreError(
                    code: .permissionDenied,
                    message: "\(action) failed: the keychain refused access (\(reason)); check the app's "
                        + "keychain-access-groups entitlement and the access group",
                    underlyingError: underlying
                )
            case errSecParam:
                throw SecureStoreError(
                    code: .invalidArgument,
                    message: "\(action) failed: the keychain rejected the query (\(reason))",
                    underlyingError: underlying
                )
            default:
                throw SecureStoreError(
                    code: .unavailable,
                    message: "\(action) failed: \(reason); try again later",
                    underlyingError: underlying
                )
            }
        }
    }
#endif
