import JWTKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The provider's signing keys, fetched once and refetched when a token names a key id the cache does
/// not know (the provider rotated its keys): once for each new key id whatever the refetch interval, since the
/// provider may rotate its key at the very answer that names it (OIDC Core 10.1.1), and otherwise at most once
/// per refetch interval.
///
/// A token without a `kid` (OIDC Core 10.1 requires one only when the JWKS has several keys) is verified
/// with the one published key that can verify its algorithm. If several keys could, the token is refused
/// rather than tried against each: the provider must then name its key.
actor JWKSCache {
    private let fetch: @Sendable () async throws(SessionKitError) -> Data
    private let refetchInterval: Duration
    private var keys: JWTKeyCollection?
    private var knownKeyIDs: Set<String> = []
    /// Every key loaded, under its own `kid` or a local name for a key that has none.
    private var loadedKeyIDs: [String] = []
    private var lastFetch: ContinuousClock.Instant?
    /// The unknown key ids a refetch was made for; each gets one, whatever the interval. Bounded: a provider
    /// that names ever new unknown keys falls back to the interval.
    private var refetchedFor: Set<String> = []
    /// Tokens these keys verified; emptied whenever the keys are reloaded.
    nonisolated let validated: IDTokenCache

    init(
        refetchInterval: Duration,
        validated: IDTokenCache = IDTokenCache(),
        fetch: @escaping @Sendable () async throws(SessionKitError) -> Data
    ) {
        self.refetchInterval = refetchInterval
        self.validated = validated
        self.fetch = fetch
    }

    /// The algorithm object for `keyID` and `algorithm`, fetching or refetching the JWKS as needed.
    func key(for keyID: String?, algorithm: String) async throws(SessionKitError) -> any JWTAlgorithm {
        if keys == nil {
            try await reload()
        } else if let keyID, !knownKeyIDs.contains(keyID), mayRefetch || !refetchedFor.contains(keyID) {
            if refetchedFor.count >= Self.refetchedLimit { refetchedFor.removeAll() }
            refetchedFor.insert(keyID)
            try await reload()
        }
        guard let keys else {
            throw Self.failure(.unknownKey, "the provider's JWKS could not be loaded")
        }
        if let keyID, !knownKeyIDs.contains(keyID) {
            throw Self.failure(.unknownKey, "no key with id '\(keyID)' is in the provider's JWKS")
        }
        guard let keyID else { return try await onlyKey(in: keys, for: algorithm) }
        do {
            return try await keys.getKey(for: JWKIdentifier(string: keyID), alg: algorithm)
        } catch {
            throw Self.failure(.algorithm, "the key '\(keyID)' cannot verify \(algorithm) signatures")
        }
    }

    /// Fetches the key set unless it is loaded already.
    func preload() async throws(SessionKitError) {
        if keys == nil { try await reload() }
    }

    /// The one published key that can verify `algorithm`, for a token that names no key.
    private func onlyKey(in keys: JWTKeyCollection, for algorithm: String) async throws(SessionKitError)
        -> any JWTAlgorithm
    {
        var candidates: [any JWTAlgorithm] = []
        for id in loadedKeyIDs {
            if let key = try? await keys.getKey(for: JWKIdentifier(string: id), alg: algorithm), key.name == algorithm {
                candidates.append(key)
            }
        }
        guard candidates.count <= 1 else {
            throw Self.failure(
                .unknownKey,
                "the ID token names no key id (kid) and the provider's JWKS has \(candidates.count) keys for "
                    + "\(algorithm); the provider must name the signing key"
            )
        }
        guard let key = candidates.first else {
            throw Self.failure(.algorithm, "the ID token names no key id and no published key verifies \(algorithm)")
        }
        return key
    }

    /// How many unknown key ids are remembered as refetched for.
    private static let refetchedLimit = 16

    private var mayRefetch: Bool {
        guard let lastFetch else { return true }
        return ContinuousClock.now - lastFetch >= refetchInterval
    }

    private func reload() async throws(SessionKitError) {
        lastFetch = ContinuousClock.now
        let data = try await fetch()
        let jwks: JWKS
        do {
            jwks = try JSONDecoder().decode(JWKS.self, from: data)
        } catch {
            throw SessionKitError(
                code: .invalidResponse,
                message: "the provider's JWKS is not a valid JSON Web Key Set; try again later",
                underlyingError: error
            )
        }
        let collection = JWTKeyCollection()
        var ids: Set<String> = []
        var loaded: [String] = []
        for (index, var jwk) in jwks.keys.enumerated() {
            guard jwk.keyType == .rsa || jwk.keyType == .ecdsa else { continue }
            let named = jwk.keyIdentifier?.string
            // A key without a kid gets a local name no token can use: it is found only by `onlyKey`.
            let id = named ?? "\u{0}unnamed-\(index)"
            jwk.keyIdentifier = JWKIdentifier(string: id)
            guard (try? await collection.add(jwk: jwk)) != nil else { continue }
            loaded.append(id)
            if let named { ids.insert(named) }
        }
        keys = collection
        knownKeyIDs = ids
        loadedKeyIDs = loaded
        validated.removeAll()
    }

    private static func failure(_ check: ValidationCheck, _ message: String) -> SessionKitError {
        SessionKitError(code: .validationFailed, message: message + "; the ID token was refused", failedCheck: check)
    }
}
