import Foundation

/// The grant implementations, one file each, sharing the client and the services.
struct Grants: Sendable {
    let core: EmulatorCore
    let client: AuthEmulator.Client

    var issuer: TokenIssuer { TokenIssuer(core: core) }

    /// Issues tokens for a new user grant, with a refresh token when `offline_access` was granted. `sid` names
    /// the SSO session of the sign-in, when there was one; the family's ID tokens carry it.
    func issueNewGrant(
        userID: String,
        scopes: [String],
        audience: String?,
        authTime: Date?,
        nonce: String? = nil,
        sid: String? = nil,
        acr: String? = nil
    ) async throws(OAuthError) -> (TokenResponse, GrantRecord) {
        let grant = await core.state.createGrant(
            userID: userID,
            clientID: client.id,
            scopes: scopes,
            audience: audience,
            authTime: authTime,
            nonce: nonce,
            sid: sid,
            acr: acr
        )
        var refreshToken: String?
        let offline = scopes.contains("offline_access") || !core.configuration.offlineAccessIsAScope
        if offline, client.grantTypes.contains(.refreshToken) {
            refreshToken = await core.state.issueRefreshToken(grantID: grant.id)
        }
        let response = try await issuer.issue(
            .init(grant: grant, client: client, scopes: scopes, refreshToken: refreshToken, nonce: nonce)
        )
        return (response, grant)
    }
}
