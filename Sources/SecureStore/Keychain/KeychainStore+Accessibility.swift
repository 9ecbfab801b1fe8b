extension KeychainStore {
    /// When the keychain lets the app read an item (`kSecAttrAccessible`).
    public struct Accessibility: Hashable, Sendable, CustomStringConvertible {
        package enum Storage: Hashable, Sendable {
            case afterFirstUnlockThisDeviceOnly
            case afterFirstUnlock
            case whenUnlockedThisDeviceOnly
            case whenUnlocked
            case whenPasscodeSetThisDeviceOnly
        }

        package let storage: Storage

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

        /// Whether items readable after the first unlock stay readable while the device is locked again.
        package var needsUnlockedDevice: Bool {
            switch storage {
            case .afterFirstUnlockThisDeviceOnly, .afterFirstUnlock: false
            case .whenUnlockedThisDeviceOnly, .whenUnlocked, .whenPasscodeSetThisDeviceOnly: true
            }
        }

        /// The name of the `kSecAttrAccessible…` constant.
        public var description: String {
            switch storage {
            case .afterFirstUnlockThisDeviceOnly: "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"
            case .afterFirstUnlock: "kSecAttrAccessibleAfterFirstUnlock"
            case .whenUnlockedThisDeviceOnly: "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"
            case .whenUnlocked: "kSecAttrAccessibleWhenUnlocked"
            case .whenPasscodeSetThisDeviceOnly: "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly"
            }
        }
    }
}
