#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ProviderClient {
    /// Validates an ID token from this provider and returns its claims: signature (with the provider's
    /// JWKS), issuer, audience and authorized party (this client), expiry, issued-at and not-before (with
    /// the configured leeway), and the nonce and `max_age` when given.
    ///
    /// Validating the same token again with the same expectations is served from a small cache: the
    /// signature is not verified again, but every claim is checked again against the current time, so an
    /// expired token fails as it would the first time. The cache is emptied whenever the JWKS is reloaded.
    ///
    /// ```swift
    /// let claims = try await provider.validateIDToken(credentials.idToken!)
    /// print(claims.subject ?? "")
    /// ```
    ///
    /// - Throws: ``SessionKitError/Code/validationFailed`` naming the failed ``ValidationCheck``; a
    ///   retryable ``SessionKitError`` when the provider's keys could not be fetched.
    nonisolated(nonsending) public func validateIDToken(
        _ token: Secret, nonce: String? = nil, maxAge: TimeInterval? = nil
    ) async throws(SessionKitError) -> JWT {
        let expected = IDTokenValidator.Expectations(
            issuer: configuration.issuer.absoluteString, clientID: configuration.clientID, nonce: nonce,
            maxAge: maxAge, subject: nil, now: providerNow, leeway: configuration.leeway
        )
        // A hit needs neither the actor nor the JWKS cache.
        if let jwt = try IDTokenValidator.cachedClaims(
            in: validatedIDTokens, for: IDTokenCache.Key(token, expected), expected)
        {
            return jwt
        }
        return try await idTokenValidator().validate(token, expecting: expected)
    }
}
