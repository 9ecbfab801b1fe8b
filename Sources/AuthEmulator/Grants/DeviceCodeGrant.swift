extension Grants {
    /// `urn:ietf:params:oauth:grant-type:device_code`: one poll (RFC 8628 §3.4–3.5).
    func deviceCode(_ p: RequestParameters) async throws(OAuthError) -> TokenResponse {
        guard let deviceCode = p["device_code"] else {
            throw OAuthError(.invalidRequest, "Missing required parameter: device_code")
        }
        let record = try await core.state.pollDevice(deviceCode, clientID: client.id).get()
        guard case .approved(let userID, let authTime) = record.status else {
            throw OAuthError(.invalidGrant, "Invalid or expired device code.")
        }
        return try await issueNewGrant(
            userID: userID,
            scopes: record.scopes,
            audience: record.audience,
            authTime: authTime
        ).0
    }
}
