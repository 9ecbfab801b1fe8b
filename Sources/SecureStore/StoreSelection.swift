#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The default store on Linux, chosen visibly: an ``EncryptedFileStore`` whose key the keyring holds
/// when one is reachable and unlocked, else one whose key is in a file beside the data, with the reason.
///
/// ```swift
/// let selection = try StoreSelection.make(service: "com.example.app", folder: folder, policy: .automatic)
/// if let warning = selection.warning { print("warning: \(warning)") }   // never a silent downgrade
/// let session = SessionManager(provider: provider, store: selection.store)
/// ```
///
/// The rules, so that a session is never lost by switching keys:
/// - The keyring is used when it works, unless the store was already written with the key file (a key file
///   and a store file exist, the keyring holds no key): then the key file stays in use, with a warning.
/// - When the keyring does not work and the store file exists without a key file, its key is in the
///   keyring: that throws ``SecureStoreError/Code/unavailable`` under every policy but ``Policy/fileOnly``.
public struct StoreSelection: Sendable {
    /// Which backends may be used.
    public enum Policy: String, Sendable, CaseIterable {
        /// Prefer the keyring; fall back to a key file and say why.
        case automatic = "auto"
        /// Use the keyring or throw ``SecureStoreError/Code/unavailable``; never fall back.
        case requireKeyring = "keyring"
        /// Use the key file; never contact the keyring.
        case fileOnly = "file"
        /// Keep the key in the Linux kernel's keyring (``EncryptedFileStore/KeySource/kernelKeyring``): never on
        /// disk, but gone after a restart; for headless machines without a Secret Service.
        case kernel
    }

    /// Where the store's key is.
    public enum Backend: Sendable, Equatable {
        /// In the Secret Service; the data is in the encrypted file store.
        case keyring
        /// In a key file beside the data; `fallbackReason` says why when the keyring was wanted.
        case keyFile(fallbackReason: String?)
        /// In the kernel's keyring; the data is in the encrypted file store.
        case kernelKeyring
    }

    /// The store to use.
    public let store: EncryptedFileStore
    /// Where its key is.
    public let backend: Backend
    /// What to do about a fallback, for ``warning``.
    let advice: String?

    /// A short name for the backend: `keyring+encrypted-file`, `encrypted-file (key file)`, or
    /// `encrypted-file (key file fallback: <reason>)`.
    public var backendDescription: String {
        switch backend {
        case .keyring: "keyring+encrypted-file"
        case .kernelKeyring: "kernel-keyring+encrypted-file"
        case .keyFile(nil): "encrypted-file (key file)"
        case .keyFile(let reason?): "encrypted-file (key file fallback: \(reason))"
        }
    }

    /// A warning to show the user when the keyring was wanted but the key file is used.
    public var warning: String? {
        guard case .keyFile(let reason?) = backend else { return nil }
        return "the session key is in a file beside the data, not in the keyring: \(reason)"
            + (advice.map { "; \($0)" } ?? "")
    }

    /// Opens the store of `service` in `folder` under `policy`.
    ///
    /// - Parameters:
    ///   - keyFileName: The key file's name inside `folder`, for the key-file backend.
    ///   - keyring: The keyring's application attribute and timeout.
    /// - Throws: ``SecureStoreError/Code/unavailable`` when the keyring is required (by the policy, or
    ///   because it holds the existing store's key) and cannot be used; any error of opening the store.
    public static func make(
        service: String,
        folder: String,
        policy: Policy = .automatic,
        keyFileName: String = EncryptedFileStore.KeySource.defaultKeyFileName,
        keyring: SecretServiceStore.Configuration = .init()
    ) throws(SecureStoreError) -> StoreSelection {
        let keyFile = folder + "/" + keyFileName
        let files = ExistingFiles(
            keyFile: FileManager.default.fileExists(atPath: keyFile),
            store: FileManager.default.fileExists(atPath: folder + "/" + StoreFolder.fileName(forService: service))
        )
        func open(
            _ source: EncryptedFileStore.KeySource,
            _ backend: Backend,
            advice: String?
        ) throws(SecureStoreError) -> StoreSelection {
            try StoreSelection(service: service, folder: folder, source: source, backend: backend, advice: advice)
        }
        if policy == .fileOnly {
            return try open(.keyFile(atPath: keyFile), .keyFile(fallbackReason: nil), advice: nil)
        }
        if policy == .kernel {
            if files.keyFile && files.store {
                throw SecureStoreError(
                    code: .unavailable,
                    message:
                        "the store in \(folder) was created with the key file \(keyFile); to move it to the kernel "
                        + "keyring, sign out, delete that file and sign in again with this store")
            }
            return try open(.kernelKeyring, .kernelKeyring, advice: nil)
        }
        let keyringKey = KeyringKey(service: service, folder: folder, configuration: keyring)
        // Read once: a key found here is handed to the store, which then does not ask the keyring again.
        let state = Result { () throws(SecureStoreError) in try keyringKey.load() }
        switch (state, policy) {
        case (.success(nil), _) where files.keyFile && files.store:
            let reason = "the store in \(folder) was created with the key file \(keyFile)"
            let advice = "to move it to the keyring, sign out, delete that file and sign in again"
            if policy == .requireKeyring {
                throw SecureStoreError(code: .unavailable, message: reason + "; " + advice)
            }
            return try open(.keyFile(atPath: keyFile), .keyFile(fallbackReason: reason), advice: advice)
        case (.success(let key?), _):
            return try open(.key(key), .keyring, advice: nil)
        case (.success(nil), _):
            return try open(.secretService(keyring), .keyring, advice: nil)
        case (.failure(let error), .automatic) where error.code == .unavailable && !(files.store && !files.keyFile):
            let reason = (error.underlyingError as? SecretServiceFailure)?.shortReason ?? error.message
            let advice = "to use the keyring, unlock it (log in to the desktop session) or start a Secret Service"
            return try open(.keyFile(atPath: keyFile), .keyFile(fallbackReason: reason), advice: advice)
        case (.failure(let error), _) where error.code == .unavailable && files.store && !files.keyFile:
            throw SecureStoreError(
                code: .unavailable,
                message: "the store in \(folder) is encrypted with a key held in the keyring, which cannot be used "
                    + "now: \(error.message)",
                underlyingError: error
            )
        case (.failure(let error), _):
            throw error
        }
    }

    private init(
        service: String,
        folder: String,
        source: EncryptedFileStore.KeySource,
        backend: Backend,
        advice: String?
    ) throws(SecureStoreError) {
        store = try EncryptedFileStore(service: service, configuration: .init(folder: folder, keySource: source))
        self.backend = backend
        self.advice = advice
    }

    private struct ExistingFiles {
        let keyFile: Bool
        let store: Bool
    }
}
