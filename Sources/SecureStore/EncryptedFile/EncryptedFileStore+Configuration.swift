#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension EncryptedFileStore {
    /// Where an ``EncryptedFileStore`` keeps its files, where its key comes from, and how long it waits
    /// for the store lock.
    public struct Configuration: Sendable {
        /// The folder that holds one file per service (created with mode 0700 when missing).
        public var folder: String
        /// Where the 256-bit encryption key comes from.
        public var keySource: KeySource
        /// How long a write waits for another writer to release the store lock before it throws
        /// ``SecureStoreError/Code/unavailable``.
        public var lockTimeout: Duration

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - folder: The store folder; `nil` means ``defaultFolder(environment:)``.
        ///   - keySource: Where the key comes from; by default the key file `store.key` in the folder.
        ///   - lockTimeout: How long writes wait for the store lock; 5 seconds by default.
        public init(folder: String? = nil, keySource: KeySource = .defaultKeyFile, lockTimeout: Duration = .seconds(5))
        {
            self.folder = folder ?? Self.defaultFolder()
            self.keySource = keySource
            self.lockTimeout = lockTimeout
        }

        /// The default store folder: `$XDG_STATE_HOME/sessionkit` when `XDG_STATE_HOME` is an absolute
        /// path, else `~/.local/state/sessionkit`, following the XDG Base Directory specification.
        public static func defaultFolder(
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) -> String {
            if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
                return state + "/sessionkit"
            }
            let home =
                environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? FileManager.default.homeDirectoryForCurrentUser.path
            return home + "/.local/state/sessionkit"
        }
    }
}
