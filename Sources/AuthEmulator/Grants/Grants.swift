import Foundation

/// The grant implementations, one file each, sharing the client and the services.
struct Grants: Sendable {
    let core: EmulatorCore
    let client: AuthEmulator.Client
    /// The thumbprint of the key the request's DPoP proof was signed with; `nil` without a proof.
    var dpop: String? = nil

    var issuer: TokenIssuer { TokenIssuer(core: core, dpop: dpop) }

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
            acr: acr,
            // A public client's refresh tokens are bound to its key; a confidential client's are bound to the
            // client by its secret (RFC 9449 section 5).
            dpopJKT: client.isPublic ? dpop : nil
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
