public import SecureStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DPoPKey {
    /// The item a session's DPoP key is kept under, unless another is named.
    public static let defaultStoreKey = "sessionkit.dpop-key"

    /// The key kept in `store` under `key`, created and saved there on first use.
    ///
    /// Only a store that answers "no such item" gets a new key: a store that cannot be read (locked, unreachable)
    /// is an error, retryable, and never a reason to replace the key, which would end the session's bound tokens.
    ///
    /// - Throws: ``SessionKitError/Code/storeUnavailable`` when the store cannot be read or written;
    ///   ``SessionKitError/Code/storeCorrupted`` when the item is not a P-256 key (remove it to start afresh,
    ///   which signs the user out).
    public static func stored(in store: any SecureStore, forKey key: String = defaultStoreKey)
        throws(SessionKitError) -> DPoPKey
    {
        do {
            var created: DPoPKey?
            let data = try store.update(forKey: key) { existing in
                if let existing { return existing }
                let fresh = DPoPKey.generate()
                created = fresh
                return fresh.unsafeRawRepresentation
            }
            if let created { return created }
            guard let data else { throw SessionKitError(code: .storeCorrupted, message: "the DPoP key item is empty") }
            return try stored(data, key: key)
        } catch {
            throw storeFailure(error, key: key)
        }
    }

    /// The key in `store` (a server's asynchronous store, such as PostgreSQL) under `key`, created on first use.
    public static func stored(in store: any AsyncSecureStore, forKey key: String = defaultStoreKey)
        async
        throws(SessionKitError) -> DPoPKey
    {
        let data: Data?
        do {
            data = try await store.update(forKey: key) { existing in
                existing ?? DPoPKey.generate().unsafeRawRepresentation
            }
        } catch {
            throw storeFailure(error, key: key)
        }
        guard let data else { throw SessionKitError(code: .storeCorrupted, message: "the DPoP key item is empty") }
        return try stored(data, key: key)
    }

    private static func storeFailure(_ error: any Error, key: String) -> SessionKitError {
        if let error = error as? SessionKitError { return error }
        if let error = error as? SecureStoreError { return SessionKitError(storeError: error) }
        return SessionKitError(
            code: .storeUnavailable, message: "the DPoP key '\(key)' could not be read; try again",
            underlyingError: error)
    }

    private static func stored(_ data: Data, key: String) throws(SessionKitError) -> DPoPKey {
        do {
            return try DPoPKey(rawRepresentation: data)
        } catch {
            throw SessionKitError(
                code: .storeCorrupted,
                message: "the item '\(key)' is not a DPoP key; remove it to make a new one (the session's tokens, "
                    + "bound to the old key, then need a new sign-in)",
                underlyingError: error)
        }
    }
}
