import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A ``SecureStore`` over the freedesktop Secret Service (GNOME Keyring, KeePassXC, KWallet's bridge),
/// through libsecret loaded at run time.
///
/// Each key is one item in the default collection, with the schema `dev.sessionkit.Secret` and the
/// attributes `service` (``service``), `account` (the key) and `application`
/// (``Configuration/application``), labelled `SessionKit: <service> <key>` so a person can recognise it
/// in a keyring browser or with `secret-tool search service <service>`. Values are stored as text,
/// `b64:` followed by the value in base64, because Secret Service passwords are strings.
///
/// - A missing libsecret, no D-Bus session, no Secret Service, a locked or missing default collection,
///   and a call that takes longer than ``Configuration/timeout`` throw ``SecureStoreError/Code/unavailable``
///   with a message that says what to do. The store checks the lock state first and never asks for a
///   password, so it never waits for a prompt.
/// - ``update(forKey:_:)`` is atomic against every `SecretServiceStore` in this process (they share one
///   lock); across processes it is only as atomic as each single call.
///
/// Each call blocks its thread for at least one D-Bus round trip; call it off the main actor. Large
/// values work, but keyrings are made for small secrets: prefer ``DefaultStore`` (the keyring holds the
/// key, an ``EncryptedFileStore`` the data).
public struct SecretServiceStore: SecureStore {
    /// The service whose items this store holds (the items' `service` attribute).
    public let service: String
    /// The application attribute and timeout this store was created with.
    public let configuration: Configuration

    /// The schema name of every item.
    public static let schemaName = "dev.sessionkit.Secret"
    /// The prefix of every stored value; base64 of the data follows.
    static let valuePrefix = "b64:"
    /// Serializes ``update(forKey:_:)`` within this process.
    private static let updateLock = Mutex(())

    /// Creates a store for `service`. It does not contact the keyring; see ``checkAvailability()``.
    public init(service: String, configuration: Configuration = Configuration()) {
        self.service = service
        self.configuration = configuration
    }

    /// Throws ``SecureStoreError/Code/unavailable`` (with the reason and what to do) unless libsecret is
    /// installed and the Secret Service answers in time with an unlocked default collection.
    public func checkAvailability() throws(SecureStoreError) {
        try perform("opening the keyring") { _ in .success(()) }
    }

    /// Returns the data stored under `key`, or `nil` when there is none.
    public func data(forKey key: String) throws(SecureStoreError) -> Data? {
        let attributes = try self.attributes(key: key)
        let text = try perform("reading the item '\(key)' from the keyring") { $0.lookup(attributes) }
        guard let text else { return nil }
        guard text.hasPrefix(Self.valuePrefix), let data = Data(base64Encoded: String(text.dropFirst(4))) else {
            throw SecureStoreError(
                code: .corrupted,
                message: "the keyring item '\(key)' of service '\(service)' is not in SessionKit's format; delete it "
                    + "(secret-tool clear service '\(service)' account '\(key)')"
            )
        }
        return data
    }

    /// Stores `data` under `key`, replacing any earlier value.
    public func setData(_ data: Data, forKey key: String) throws(SecureStoreError) {
        let attributes = try self.attributes(key: key)
        let label = "SessionKit: \(service) \(key)"
        let text = Self.valuePrefix + data.base64EncodedString()
        try perform("writing the item '\(key)' to the keyring") { $0.store(attributes, label: label, password: text) }
    }

    /// Removes the item under `key`. Removing a missing item is not an error.
    public func deleteItem(forKey key: String) throws(SecureStoreError) {
        let attributes = try self.attributes(key: key)
        try perform("deleting the item '\(key)' from the keyring") { $0.clear(attributes) }
    }

    /// Removes every item of this service and application, and only those.
    public func deleteAll() throws(SecureStoreError) {
        let attributes = try self.attributes(key: nil)
        try perform("deleting the items of service '\(service)' from the keyring") { $0.clear(attributes) }
    }

    /// The keys of this service's items, sorted.
    public func keys() throws(SecureStoreError) -> [String] {
        let attributes = try self.attributes(key: nil)
        let keys = try perform("listing the items of service '\(service)' in the keyring") {
            $0.search(attributes, reading: Attribute.account.rawValue)
        }
        return Set(keys).sorted()
    }

    /// Reads the item under `key`, passes it to `transform`, and stores what it returns (`nil` deletes the
    /// item), serialized with every other `SecretServiceStore` update in this process. `transform` must not
    /// call `update` on any `SecretServiceStore`: the in-process lock is not recursive.
    ///
    /// - Returns: The value that `transform` returned, as now stored.
    @discardableResult
    public func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
        try Self.updateLock.withLock { _ throws -> Data? in
            let old = try data(forKey: key)
            let new = try transform(old)
            guard new != old else { return new }
            if let new {
                try setData(new, forKey: key)
            } else {
                try deleteItem(forKey: key)
            }
            return new
        }
    }

    /// The attributes that select this service's items, or the one item under `key`.
    private func attributes(key: String?) throws(SecureStoreError) -> [String: String] {
        guard !service.isEmpty else {
            throw SecureStoreError(code: .invalidArgument, message: "the service name is empty; pass a non-empty one")
        }
        guard key?.isEmpty != true else {
            throw SecureStoreError(code: .invalidArgument, message: "the item key is empty; pass a non-empty key")
        }
        var attributes = [
            Attribute.service.rawValue: service,
            Attribute.application.rawValue: configuration.application,
        ]
        attributes[Attribute.account.rawValue] = key
        return attributes
    }

    /// Checks that the default collection is unlocked, then runs `operation`, all within the timeout.
    private func perform<T: Sendable>(
        _ action: String,
        _ operation: @escaping @Sendable (SecretServiceClient) -> Result<T, SecretServiceFailure>
    ) throws(SecureStoreError) -> T {
        // No bus to reach: say so without loading libsecret and GLib (most of a headless `token` call's time).
        if let reason = SessionBus.absenceReason() {
            throw SecureStoreError(SecretServiceFailure(kind: .notReachable, message: reason), while: action)
        }
        let library: LibSecret
        switch LibSecret.shared {
        case .success(let loaded): library = loaded
        case .failure(let failure):
            throw SecureStoreError(
                SecretServiceFailure(kind: .libraryMissing, message: failure.description), while: action)
        }
        let result = TimeBoundCall.run(library, timeout: configuration.timeout) { library, cancellable in
            let client = SecretServiceClient(library: library, cancellable: cancellable.pointer)
            return client.requireUnlockedDefaultCollection().flatMap { operation(client) }
        }
        switch result {
        case .success(let value): return value
        case .failure(let failure): throw SecureStoreError(failure, while: action)
        }
    }
}
