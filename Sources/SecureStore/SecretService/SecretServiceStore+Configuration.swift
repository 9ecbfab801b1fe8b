extension SecretServiceStore {
    /// How a ``SecretServiceStore`` labels its items and how long it waits for the keyring.
    public struct Configuration: Sendable {
        /// The `application` attribute of every item, so a person can tell whose items they are in a keyring
        /// browser; `sessionkit` by default.
        public var application: String
        /// How long one call waits for the Secret Service before it throws
        /// ``SecureStoreError/Code/unavailable``; 5 seconds by default.
        public var timeout: Duration
        /// How long an ``EncryptedFileStore``'s key read from the keyring is also kept in the Linux kernel's
        /// keyring, so that the next process within that time reads it without a D-Bus round trip; `nil` keeps it
        /// only in the keyring. One minute by default: a key stays readable that long after the keyring is locked.
        public var kernelCacheTimeout: Duration?

        /// Creates a configuration.
        public init(
            application: String = "sessionkit", timeout: Duration = .seconds(5),
            kernelCacheTimeout: Duration? = .seconds(60)
        ) {
            self.application = application
            self.timeout = timeout
            self.kernelCacheTimeout = kernelCacheTimeout
        }
    }

    /// The item attributes of the `dev.sessionkit.Secret` schema.
    enum Attribute: String, CaseIterable {
        /// The store's service.
        case service
        /// The item's key.
        case account
        /// The application that wrote the item (``Configuration/application``).
        case application
    }
}
