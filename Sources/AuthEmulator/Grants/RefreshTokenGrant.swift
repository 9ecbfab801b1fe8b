extension Grants {
    /// `refresh_token`: rotation with reuse detection, `scope` narrowing (never widening), and access tokens for
    /// the other APIs the client's ``AuthEmulator/RefreshTokenPolicy`` list names (Auth0's Multi-Resource Refresh
    /// Token). What the request asks is checked before the token is spent: a refused audience or scope leaves the
    /// refresh token live.
    func refreshToken(_ p: RequestParameters) async throws(OAuthError) -> TokenResponse {
        guard let token = p["refresh_token"] else {
            throw OAuthError(.invalidRequest, "Missing required parameter: refresh_token")
        }
        // An unknown or revoked token has nothing to check: redeeming it gives the refusal.
        var asked: (audience: String?, scopes: [String])?
        if let grant = await core.state.grant(forRefreshToken: token) { asked = try issuance(p, from: grant) }
        let outcome = await core.state.redeemRefreshToken(
            token,
            clientID: client.id,
            rotation: core.configuration.refreshTokenRotation,
            lifetimes: core.configuration.lifetimes
        )
        switch outcome {
        case .refused(let error):
            throw error
        case .accepted(var grant, let newRefreshToken):
            let decided: (audience: String?, scopes: [String])
            if let asked { decided = asked } else { decided = try issuance(p, from: grant) }
            grant.audience = decided.audience
            return try await issuer.issue(
                .init(grant: grant, client: client, scopes: decided.scopes, refreshToken: newRefreshToken, nonce: nil)
            )
        }
    }

    /// The audience and scopes a refresh grant asks of `grant`: its own audience with the granted scopes or fewer,
    /// or another API that a refresh-token policy of the client names, with scopes within that policy.
    private func issuance(_ p: RequestParameters, from grant: GrantRecord) throws(OAuthError)
        -> (audience: String?, scopes: [String])
    {
        if let bound = grant.dpopJKT, bound != dpop {
            throw OAuthError(
                .invalidGrant,
                dpop == nil
                    ? "The refresh token is bound to a DPoP key; send a DPoP proof of that key."
                    : "The refresh token is bound to another DPoP key.")
        }
        let requested = ScopePolicy.split(p["scope"])
        guard let audience = p["audience"], audience != grant.audience else {
            guard let requested else { return (grant.audience, grant.scopes) }
            let widening = requested.filter { !grant.scopes.contains($0) }
            guard widening.isEmpty else {
                throw OAuthError(
                    .invalidScope, "The requested scope exceeds the original grant: \(widening.joined(separator: " "))"
                )
            }
            return (grant.audience, grant.scopes.filter { requested.contains($0) })
        }
        _ = try core.scopes.audience(audience)
        guard let policy = client.refreshTokenPolicies.first(where: { $0.audience == audience }) else {
            throw OAuthError(
                .accessDenied,
                "Client '\(client.id)' may not use a refresh token for audience '\(audience)': no refresh token "
                    + "policy of the client names it"
            )
        }
        // The sign-in's OpenID Connect scopes stay with the session; the API's come from the policy.
        let signIn = grant.scopes.filter { ScopePolicy.userScopes.contains($0) }
        guard let requested else { return (audience, ScopePolicy.unique(signIn + policy.scopes)) }
        let refused = requested.filter { !policy.scopes.contains($0) && !signIn.contains($0) }
        guard refused.isEmpty else {
            throw OAuthError(
                .invalidScope,
                "The requested scope is not allowed for audience '\(audience)': \(refused.joined(separator: " "))"
            )
        }
        return (audience, ScopePolicy.unique(requested))
    }
}
