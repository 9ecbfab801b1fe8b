extension Grants {
    /// `urn:openid:params:grant-type:ciba`: one poll of a backchannel authentication request (CIBA Core section 10.1).
    func ciba(_ p: RequestParameters) async throws(OAuthError) -> TokenResponse {
        guard let authReqID = p["auth_req_id"] else {
            throw OAuthError(.invalidRequest, "Missing required parameter: auth_req_id")
        }
        let record = try core.ciba.poll(authReqID, clientID: client.id, now: core.clock.now).get()
        guard case .approved(let authTime) = record.status else {
            throw OAuthError(.invalidGrant, "Invalid or expired auth_req_id.")
        }
        return try await issueNewGrant(
            userID: record.userID,
            scopes: record.scopes,
            audience: record.audience,
            authTime: authTime
        ).0
    }
}
