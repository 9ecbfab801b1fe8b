extension Grants {
    /// `password` and Auth0's `password-realm` (`realm` names the connection).
    func password(_ p: RequestParameters, realm usesRealm: Bool) async throws(OAuthError) -> TokenResponse {
        guard let username = p["username"], let password = p["password"] else {
            throw OAuthError(.invalidRequest, "Missing required parameters: username and password")
        }
        var realm: String?
        if usesRealm {
            guard let value = p["realm"] else { throw OAuthError(.invalidRequest, "Missing required parameter: realm") }
            realm = value
        }
        let audience = try core.scopes.audience(p["audience"])
        guard let user = await core.state.authenticate(username: username, password: password, realm: realm) else {
            throw OAuthError(.invalidGrant, "Wrong email or password.")
        }
        try core.scopes.checkKnown(requested: p["scope"])
        let scopes = core.scopes.userGrant(requested: p["scope"], audience: audience)
        return try await issueNewGrant(userID: user.id, scopes: scopes, audience: audience, authTime: core.clock.now).0
    }
}
