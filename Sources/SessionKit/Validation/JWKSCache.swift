import JWTKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The provider's signing keys, fetched once and refetched when a token names a key id the cache does not know
/// (the provider rotated its keys).
///
/// How often a refetch may happen depends on who presented the token:
/// - A token this client received from the provider itself (an ID token in a token response): once for each new
///   key id whatever the refetch interval, since the provider may rotate its key at the very answer that names it
///   (OIDC Core 10.1.1), and otherwise at most once per refetch interval.
/// - A token anyone could have sent (a back-channel logout token, ``Presenter/anyone``): at most once per
///   ``strangerCooldown``, whatever key id it names, so that a stranger posting tokens with made-up key ids cannot
///   make this client fetch the key set once per request. Within the cooldown such a token fails with a retryable
///   error: the provider, which retries its deliveries, is answered on a later one.
///
/// Loads are shared: callers that need the key set while it is being fetched wait for that fetch. A reload keeps the
/// tokens verified earlier (``validated``) when every key that could have verified them is still published,
/// unchanged.
///
/// A token without a `kid` (OIDC Core 10.1 requires one only when the JWKS has several keys) is verified
/// with the one published key that can verify its algorithm. If several keys could, the token is refused
/// rather than tried against each: the provider must then name its key.
actor JWKSCache {
    /// Who presented the token whose key is looked up.
    enum Presenter: Sendable {
        /// The provider, in an answer to this client's own request.
        case provider
        /// Anyone: a request this client did not make.
        case anyone
    }

    private let fetch: @Sendable () async throws(SessionKitError) -> Data
    private let refetchInterval: Duration
    /// The shortest time between two refetches for tokens that anyone may present.
    let strangerCooldown: Duration
    private var keys: JWTKeyCollection?
    private var knownKeyIDs: Set<String> = []
    /// Every key loaded, under its own `kid` or a local name for a key that has none.
    private var loadedKeyIDs: [String] = []
    /// What the loaded keys are (id, type, public material): a reload that keeps them all keeps the tokens they
    /// verified.
    private var fingerprints: Set<String> = []
    private var lastFetch: ContinuousClock.Instant?
    /// The fetch under way, which every caller that needs the keys meanwhile waits for.
    private var loading: Task<Void, any Error>?
    /// The unknown key ids a refetch was made for; each gets one, whatever the interval. Bounded: a provider
    /// that names ever new unknown keys falls back to the interval.
    private var refetchedFor: Set<String> = []
    /// Tokens these keys verified; emptied when a reload withdraws or changes a key.
    nonisolated let validated: IDTokenCache
    /// The monotonic clock the intervals are measured with (a test's own, to control them).
    private let now: @Sendable () -> ContinuousClock.Instant

    init(
        refetchInterval: Duration,
        strangerCooldown: Duration = .seconds(30),
        validated: IDTokenCache = IDTokenCache(),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        fetch: @escaping @Sendable () async throws(SessionKitError) -> Data
    ) {
        self.refetchInterval = refetchInterval
        self.strangerCooldown = strangerCooldown
        self.validated = validated
        self.now = now
        self.fetch = fetch
    }

    /// The algorithm object for `keyID` and `algorithm`, fetching or refetching the JWKS as needed.
    func key(for keyID: String?, algorithm: String, presentedBy presenter: Presenter = .provider)
        async throws(SessionKitError) -> any JWTAlgorithm
    {
        let unknown = keys == nil || keyID.map { !knownKeyIDs.contains($0) } == true
        switch presenter {
        case .provider where keys == nil:
            try await reload()
        case .provider where unknown:
            if let keyID, mayRefetch(after: refetchInterval) || !refetchedFor.contains(keyID) {
                if refetchedFor.count >= Self.refetchedLimit { refetchedFor.removeAll() }
                refetchedFor.insert(keyID)
                try await reload()
            }
        case .anyone where unknown:
            guard loading != nil || mayRefetch(after: strangerCooldown) else {
                throw SessionKitError(
                    code: .timeout,
                    message: "the token names a key that the provider's key set did not have when it was fetched "
                        + "less than \(strangerCooldown) ago, and it is not fetched again sooner; send the token again "
                        + "later")
            }
            try await reload()
        case .provider, .anyone:
            break
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

    /// Whether the last fetch started at least `interval` ago (or none did).
    private func mayRefetch(after interval: Duration) -> Bool {
        guard let lastFetch else { return true }
        return now() - lastFetch >= interval
    }

    /// Fetches the key set, or waits for the fetch under way.
    private func reload() async throws(SessionKitError) {
        let task: Task<Void, any Error>
        if let loading {
            task = loading
        } else {
            lastFetch = now()
            task = Task { try await self.load() }
            loading = task
        }
        let result = await task.result
        if loading == task { loading = nil }
        switch result {
        case .success: return
        case .failure(let error as SessionKitError): throw error
        case .failure(let error):
            throw SessionKitError(
                code: .invalidResponse, message: "the provider's JWKS could not be loaded; try again later",
                underlyingError: error)
        }
    }

    /// One fetch of the key set, installed when it is valid.
    private func load() async throws(SessionKitError) {
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
        var prints: Set<String> = []
        for (index, var jwk) in jwks.keys.enumerated() {
            guard jwk.keyType == .rsa || jwk.keyType == .ecdsa else { continue }
            let named = jwk.keyIdentifier?.string
            // A key without a kid gets a local name no token can use: it is found only by `onlyKey`.
            let id = named ?? "\u{0}unnamed-\(index)"
            jwk.keyIdentifier = JWKIdentifier(string: id)
            guard (try? await collection.add(jwk: jwk)) != nil else { continue }
            loaded.append(id)
            prints.insert(Self.fingerprint(jwk))
            if let named { ids.insert(named) }
        }
        // The tokens verified so far stay verified only while every key that could have verified them is published.
        if !fingerprints.isSubset(of: prints) { validated.removeAll() }
        keys = collection
        knownKeyIDs = ids
        loadedKeyIDs = loaded
        fingerprints = prints
    }

    /// A key's id, type, algorithm and public material, as one string.
    private static func fingerprint(_ jwk: JWK) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(jwk)).map { String(decoding: $0, as: UTF8.self) } ?? UUID().uuidString
    }

    private static func failure(_ check: ValidationCheck, _ message: String) -> SessionKitError {
        SessionKitError(code: .validationFailed, message: message + "; the ID token was refused", failedCheck: check)
    }
}
