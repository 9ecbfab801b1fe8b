extension Grants {
    /// `refresh_token`: rotation with reuse detection, and `scope` narrowing (never widening).
    func refreshToken(_ p: RequestParameters) async throws(OAuthError) -> TokenResponse {
        guard let token = p["refresh_token"] else {
            throw OAuthError(.invalidRequest, "Missing required parameter: refresh_token")
        }
        let outcome = await core.state.redeemRefreshToken(
            token,
            clientID: client.id,
            rotation: core.configuration.refreshTokenRotation,
            lifetimes: core.configuration.lifetimes
        )
        switch outcome {
        case .refused(let error):
            throw error
        case .accepted(let grant, let newRefreshToken):
            var scopes = grant.scopes
            if let requested = ScopePolicy.split(p["scope"]) {
                let widening = requested.filter { !grant.scopes.contains($0) }
                guard widening.isEmpty else {
                    throw OAuthError(
                        .invalidScope,
                        "The requested scope exceeds the original grant: \(widening.joined(separator: " "))"
                    )
                }
                scopes = grant.scopes.filter { requested.contains($0) }
            }
            return try await issuer.issue(
                .init(grant: grant, client: client, scopes: scopes, refreshToken: newRefreshToken, nonce: nil)
            )
        }
    }
}
