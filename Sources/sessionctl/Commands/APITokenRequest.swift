import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `sessionctl token --audience A [--scope S]` asks for: an access token for another API from the profile's
/// one session (the provider renews it with the session's refresh token and these parameters).
///
/// On `token`, `--audience` and `--scope` name the token wanted, not the session: the session is the one the
/// profile (environment and saved settings) signed in with, so the flags are taken out of the settings that open
/// it. Without them, `token` prints the session's own access token as before.
struct APITokenRequest: Equatable {
    /// The API identifier.
    let audience: String
    /// The scopes asked for, if not the provider's default for that API.
    let scope: String?

    /// The request in `flags`, if any, and the flags that open the session.
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` for `--scope` with no audience anywhere.
    static func split(_ flags: SettingFlags) throws(SessionKitError) -> (APITokenRequest?, session: SettingFlags) {
        guard flags[.audience] != nil || flags[.scope] != nil else { return (nil, flags) }
        var session = flags
        session[.audience] = nil
        session[.scope] = nil
        var audience = flags[.audience]
        if audience == nil { audience = try session.resolved().settings.audience }
        guard let audience else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "`token --scope` asks for a token for an API: name the API with --audience")
        }
        return (APITokenRequest(audience: audience, scope: flags[.scope]), session)
    }

    /// The token `api` asks for (the session's own without one) from memory or the store, valid for `minTTL`
    /// seconds, or `nil` when it must be renewed.
    static func local(_ api: APITokenRequest?, _ session: SessionManager, minTTL: TimeInterval)
        throws(SessionKitError) -> Credentials?
    {
        guard let api else { return try session.localCredentials(minTTL: minTTL) }
        return try session.localCredentials(audience: api.audience, scope: api.scope, minTTL: minTTL)
    }

    /// The token, renewed first when needed.
    func credentials(_ session: SessionManager, minTTL: TimeInterval) async throws(SessionKitError) -> Credentials {
        try await session.credentials(audience: audience, scope: scope, minTTL: minTTL)
    }
}
