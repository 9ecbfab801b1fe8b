extension Grants {
    /// `authorization_code`: redeems a code once, with PKCE and redirect URI checks (RFC 6749 §4.1.3).
    func authorizationCode(_ p: RequestParameters) async throws(OAuthError) -> TokenResponse {
        guard let code = p["code"] else { throw OAuthError(.invalidRequest, "Missing required parameter: code") }
        let record = try await core.state.redeemCode(
            code,
            clientID: client.id,
            redirectURI: p["redirect_uri"],
            verifier: p["code_verifier"],
            dpopJKT: dpop
        ).get()
        let (response, grant) = try await issueNewGrant(
            userID: record.userID,
            scopes: record.scopes,
            audience: record.audience,
            authTime: record.authTime,
            nonce: record.nonce,
            sid: record.sid,
            acr: record.acr
        )
        await core.state.attach(grantID: grant.id, toCode: code)
        return response
    }
}
