extension Grants {
    /// `client_credentials`: confidential clients only, for an API audience (the Management API through a client
    /// grant only); no ID or refresh token.
    func clientCredentials(_ p: RequestParameters) async throws(OAuthError) -> TokenResponse {
        guard !client.isPublic else {
            throw OAuthError(.unauthorizedClient, "Grant type 'client_credentials' requires a confidential client.")
        }
        guard let audience = try core.scopes.audience(p["audience"]) else {
            throw OAuthError(
                .accessDenied,
                "No audience parameter was provided, and no default audience has been configured"
            )
        }
        let scopes = try core.scopes.clientGrant(requested: p["scope"], audience: audience, client: client)
        let grant = await core.state.createGrant(
            userID: nil,
            clientID: client.id,
            scopes: scopes,
            audience: audience,
            authTime: nil
        )
        return try await issuer.issue(.init(grant: grant, client: client, scopes: scopes, refreshToken: nil))
    }
}
