import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension SessionManager {
    /// An access token for another API, from the session's one sign-in: renewed with the session's refresh token
    /// and the `audience` (and `scope`) parameters, as Auth0's Multi-Resource Refresh Token serves it.
    ///
    /// ```swift
    /// let payments = try await session.credentials(audience: "https://payments.example.com/", scope: "pay")
    /// request.setValue("Bearer \(payments.accessToken.unsafeRawValue)", forHTTPHeaderField: "Authorization")
    /// ```
    ///
    /// Each (audience, scope) has its own access token in the session's record, renewed once however many
    /// callers ask at once, here or in other processes. Renewals of different APIs take turns, since they spend
    /// the same refresh token; a rotated refresh token from any of them is the session's. The configured
    /// audience with no `scope` is ``credentials(minTTL:scope:)``.
    ///
    /// - Parameters:
    ///   - audience: The API identifier (the token's `aud`).
    ///   - scope: The scopes to ask for, if not the provider's default for that API.
    ///   - minTTL: The seconds the access token must stay valid.
    /// - Returns: Credentials with the API's access token, its type, expiry and granted scope; no refresh token
    ///   and no ID token (those are the session's).
    /// - Throws: ``SessionKitError/Code/signInRequired`` when there is no session or the provider ended it;
    ///   ``SessionKitError/Code/providerError`` when the provider refused the audience or scope (the session is
    ///   kept: the client may not ask for that API); a retryable error for a transient failure.
    nonisolated(nonsending) public func credentials(
        audience: String, scope: String? = nil, minTTL: TimeInterval = 0
    ) async throws(SessionKitError) -> Credentials {
        guard !audience.isEmpty else {
            throw SessionKitError(code: .invalidInput, message: "the audience is empty; name the API's identifier")
        }
        let key = RenewalTarget.APIKey(audience: audience, scope: scope)
        if audience == provider.configuration.audience, key.scope == nil {
            return try await credentials(minTTL: minTTL)
        }
        let target = RenewalTarget.api(key)
        if let cached = cache.withLock({ $0.flatMap(target.credentials(in:)) }),
            cached.satisfies(minTTL: minTTL, scope: nil, now: clock.now())
        {
            return cached
        }
        if let running = renewal.withLock({ $0 }), running.target == target {
            do {
                return try await running.task.value
            } catch {
                throw ProviderClient.wrap(error)
            }
        }
        return try await validCredentials(minTTL: minTTL, scope: nil, force: false, target: target)
    }

    /// The stored access token for another API, valid for at least `minTTL` seconds, or `nil` when it would have
    /// to be renewed first (or there is none). Never renews and never goes to the network: the hot path of a
    /// command-line tool, which falls back to ``credentials(audience:scope:minTTL:)`` on `nil`.
    public nonisolated func localCredentials(audience: String, scope: String? = nil, minTTL: TimeInterval = 0)
        throws(SessionKitError) -> Credentials?
    {
        let key = RenewalTarget.APIKey(audience: audience, scope: scope)
        if audience == provider.configuration.audience, key.scope == nil {
            return try localCredentials(minTTL: minTTL)
        }
        guard let record = try currentRecordWithoutSuspending(), record.credentials != nil,
            let current = RenewalTarget.api(key).credentials(in: record),
            current.satisfies(minTTL: minTTL, scope: nil, now: clock.now())
        else { return nil }
        return current
    }
}
