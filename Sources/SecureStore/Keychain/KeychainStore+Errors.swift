extension KeychainStore {
    /// The store error for a keychain status other than success, saying what failed and what to do.
    func failure(_ status: KeychainStatus, _ action: String) -> SecureStoreError {
        let reason = backend.message(for: status) ?? "\(status)"
        let underlying = KeychainStatusError(status: status)
        switch status {
        case .interactionNotAllowed:
            return SecureStoreError(
                code: .unavailable,
                message: "\(action) failed: the keychain is locked (\(reason)); try again after the device is unlocked",
                underlyingError: underlying
            )
        case .missingEntitlement, .authFailed, .noAccessForItem:
            return SecureStoreError(
                code: .permissionDenied,
                message: "\(action) failed: the keychain refused access (\(reason)); check the app's "
                    + "keychain-access-groups entitlement and the access group",
                underlyingError: underlying
            )
        case .invalidParameter:
            return SecureStoreError(
                code: .invalidArgument,
                message: "\(action) failed: the keychain rejected the query (\(reason))",
                underlyingError: underlying
            )
        case .success, .itemNotFound, .duplicateItem, .other:
            return SecureStoreError(
                code: .unavailable,
                message: "\(action) failed: \(reason); try again later",
                underlyingError: underlying
            )
        }
    }
}

/// A keychain status as the underlying error of a ``SecureStoreError``.
package struct KeychainStatusError: Error, CustomStringConvertible {
    /// The status.
    package let status: KeychainStatus
    /// The status, for a log line.
    package var description: String { "keychain status \(status)" }
}
