public import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension EncryptedFileStore {
    /// Where an ``EncryptedFileStore`` gets its 256-bit key.
    public struct KeySource: Sendable {
        enum Storage: Sendable {
            case key(SymmetricKey)
            case keyFile(String?)
            case secretService(SecretServiceStore.Configuration)
            case kernelKeyring
        }

        let storage: Storage

        /// A key the caller holds, for example one kept in a platform keyring. It must be 256 bits long.
        public static func key(_ key: SymmetricKey) -> KeySource { KeySource(storage: .key(key)) }

        /// A key kept in the file at `path`: 32 raw bytes, mode 0600.
        ///
        /// A missing file is created with a fresh random key (safely when several processes race to create
        /// it). A file whose length is not 32 bytes is ``SecureStoreError/Code/corrupted``. A file that other
        /// users may read or write is refused with ``SecureStoreError/Code/permissionDenied`` rather than
        /// tightened, because its key may already have leaked.
        ///
        /// A key file beside the data protects against copies of the data files alone (backups, sync), not
        /// against someone who can read the user's files; prefer ``key(_:)`` with a key from a keyring.
        public static func keyFile(atPath path: String) -> KeySource { KeySource(storage: .keyFile(path)) }

        /// The key file `store.key` in the store's folder (see ``keyFile(atPath:)``).
        public static let defaultKeyFile = KeySource(storage: .keyFile(nil))

        /// A key held in the freedesktop Secret Service (the keyring), created at random on first use: the
        /// envelope setup, where the keyring holds only the key and the store file holds the data, so the key
        /// never touches the disk and large sessions stay out of the keyring.
        ///
        /// The key is one keyring item per store folder and service: attributes `service` =
        /// `<service>.file-key` and `account` = the folder's absolute path, value 32 bytes (see
        /// ``SecretServiceStore``). When the keyring cannot be used, creating the store throws
        /// ``SecureStoreError/Code/unavailable``. ``StoreSelection`` picks this source when the keyring works.
        public static func secretService(_ configuration: SecretServiceStore.Configuration = .init()) -> KeySource {
            KeySource(storage: .secretService(configuration))
        }

        /// A key held in the Linux kernel's keyring (the user keyring, `@u`), created at random on first use: for
        /// headless machines with no Secret Service, where the key must not be on disk either.
        ///
        /// The kernel keeps it until the machine restarts, or until the user has no process left (a logged-in
        /// session or a lingering systemd user manager keeps it): after that the store's data cannot be read, and
        /// opening it throws ``SecureStoreError/Code/unavailable`` saying to remove the store file and sign in
        /// again. Where `keyctl` is blocked (a container's default seccomp profile) it throws
        /// ``SecureStoreError/Code/unavailable`` at once.
        public static let kernelKeyring = KeySource(storage: .kernelKeyring)

        /// The name of the default key file inside the store folder.
        public static let defaultKeyFileName = "store.key"

        /// Loads (or creates) the key and derives the store keys from it.
        func load(folder: String, service: String) throws(SecureStoreError) -> StoreKeys {
            switch storage {
            case .key(let key):
                return try StoreKeys(deriving: key)
            case .keyFile(let path):
                let path = path ?? folder + "/" + Self.defaultKeyFileName
                return try StoreKeys(deriving: KeyFile.loadOrCreate(path))
            case .secretService(let configuration):
                let keyring = KeyringKey(service: service, folder: folder, configuration: configuration)
                return try StoreKeys(deriving: keyring.loadOrCreate())
            case .kernelKeyring:
                return try StoreKeys(deriving: KernelKeyringKey(service: service, folder: folder).loadOrCreate())
            }
        }
    }
}
