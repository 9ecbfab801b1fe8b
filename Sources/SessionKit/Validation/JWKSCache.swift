import Foundation
import JWTKit

/// The provider's signing keys, fetched once and refetched when a token names a key id the cache does
/// not know (the provider rotated its keys), at most once per refetch interval.
actor JWKSCache {
    private let fetch: @Sendable () async throws(SessionKitError) -> Data
    private let refetchInterval: Duration
    private var keys: JWTKeyCollection?
    private var knownKeyIDs: Set<String> = []
    private var lastFetch: ContinuousClock.Instant?
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
        if keys == nil || (keyID.map { !knownKeyIDs.contains($0) } ?? false) && mayRefetch {
            try await reload()
        }
        guard let keys else {
            throw Self.failure(.unknownKey, "the provider's JWKS could not be loaded")
        }
        if let keyID, !knownKeyIDs.contains(keyID) {
            throw Self.failure(.unknownKey, "no key with id '\(keyID)' is in the provider's JWKS")
        }
        if keyID == nil && knownKeyIDs.count > 1 {
            throw Self.failure(.unknownKey, "the ID token names no key id and the provider's JWKS has several keys")
        }
        do {
            return try await keys.getKey(for: keyID.map { JWKIdentifier(string: $0) }, alg: algorithm)
        } catch {
            throw Self.failure(.algorithm, "the key '\(keyID ?? "default")' cannot verify \(algorithm) signatures")
        }
    }

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
        for jwk in jwks.keys {
            guard jwk.keyType == .rsa || jwk.keyType == .ecdsa else { continue }
            guard let id = jwk.keyIdentifier?.string else { continue }
            if (try? await collection.add(jwk: jwk)) != nil { ids.insert(id) }
        }
        keys = collection
        knownKeyIDs = ids
        validated.removeAll()
    }

    private static func failure(_ check: ValidationCheck, _ message: String) -> SessionKitError {
        SessionKitError(code: .validationFailed, message: message + "; the ID token was refused", failedCheck: check)
    }
}
