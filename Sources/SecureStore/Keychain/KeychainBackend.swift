#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The keychain calls ``KeychainStore`` makes, in Swift types: the seam between its logic (query building,
/// the accessibility and access group it writes, the mapping of statuses to errors, atomic updates) and the
/// `SecItem*` functions.
///
/// On Apple platforms the backend is a thin binding to the Security framework that converts these values to
/// the `kSec…` dictionaries and back, and nothing else. Tests on Linux use a model of the keychain's
/// documented semantics instead (`KeychainModel`, in SecureStoreTesting), through the same logic.
package protocol KeychainBackend: Sendable {
    /// `SecItemCopyMatching` with `kSecReturnData` and `kSecMatchLimitOne`.
    func copyData(matching query: KeychainQuery) -> Result<Data, KeychainStatus>
    /// `SecItemCopyMatching` with `kSecReturnAttributes` and `kSecMatchLimitAll`: the accounts found.
    func copyAccounts(matching query: KeychainQuery) -> Result<[String], KeychainStatus>
    /// `SecItemAdd` of a generic password with `data` and `accessibility`.
    func add(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility) -> KeychainStatus
    /// `SecItemUpdate` of the items matching `query` to `data` and `accessibility`.
    func update(_ query: KeychainQuery, data: Data, accessibility: KeychainStore.Accessibility) -> KeychainStatus
    /// `SecItemDelete` of every item matching `query`.
    func delete(_ query: KeychainQuery) -> KeychainStatus
    /// The system's words for `status` (`SecCopyErrorMessageString`), if it has any.
    func message(for status: KeychainStatus) -> String?
}

/// The attributes that select a store's generic-password items (`kSecClassGenericPassword`).
package struct KeychainQuery: Hashable, Sendable {
    /// `kSecAttrService`.
    package var service: String
    /// `kSecAttrAccount`, or `nil` for every item of the service.
    package var account: String?
    /// `kSecAttrAccessGroup`, or `nil`: every group the app may use when searching, its default group when
    /// adding.
    package var accessGroup: String?
    /// `kSecAttrSynchronizable`: `true` matches only items that sync through iCloud Keychain, `false` (the
    /// keychain's default when the attribute is absent) only those that do not.
    package var synchronizable: Bool

    package init(service: String, account: String?, accessGroup: String?, synchronizable: Bool) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.synchronizable = synchronizable
    }
}

/// An `OSStatus` of the keychain calls, by the meaning ``KeychainStore`` gives it.
package enum KeychainStatus: Error, Hashable, Sendable {
    /// `errSecSuccess`.
    case success
    /// `errSecItemNotFound`.
    case itemNotFound
    /// `errSecDuplicateItem`: an add found the item already there (another process added it first).
    case duplicateItem
    /// `errSecInteractionNotAllowed`: the device is locked (or was not unlocked since boot) and the item's
    /// accessibility does not allow access now.
    case interactionNotAllowed
    /// `errSecMissingEntitlement`: the access group is not among the app's entitlements.
    case missingEntitlement
    /// `errSecAuthFailed`.
    case authFailed
    /// `errSecNoAccessForItem`.
    case noAccessForItem
    /// `errSecParam`: the query is malformed.
    case invalidParameter
    /// Any other status, with its code.
    case other(Int32)
}
