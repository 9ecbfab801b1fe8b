import Foundation
import JWTKit

extension Grants {
    /// RFC 8693 token-type identifiers the emulator accepts and issues.
    enum TokenType {
        static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
        static let idToken = "urn:ietf:params:oauth:token-type:id_token"
        static let refreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
        static let sessionTransferToken = "urn:auth0:params:oauth:token-type:session_transfer_token"
    }

    /// `urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693): a still-valid access token or ID token
    /// issued by this emulator is exchanged for new tokens for the same user, optionally for another audience.
    func tokenExchange(_ p: RequestParameters) async throws(OAuthError) -> TokenResponse {
        guard let subjectToken = p["subject_token"], let subjectType = p["subject_token_type"] else {
            throw OAuthError(.invalidRequest, "Missing required parameters: subject_token and subject_token_type")
        }
        if p["requested_token_type"] == TokenType.sessionTransferToken {
            return try await sessionTransfer(subjectToken, type: subjectType)
        }
        guard [TokenType.accessToken, TokenType.idToken].contains(subjectType) else {
            throw OAuthError(.invalidRequest, "Unsupported subject_token_type: \(subjectType)")
        }
        if let requested = p["requested_token_type"], requested != TokenType.accessToken {
            throw OAuthError(.invalidRequest, "Only access tokens can be requested (requested_token_type).")
        }
        let userID = try await subject(subjectToken, type: subjectType)
        let audience = try core.scopes.audience(p["audience"])
        let scopes = core.scopes.userGrant(requested: p["scope"], audience: audience)
        var response = try await issueNewGrant(
            userID: userID,
            scopes: scopes,
            audience: audience,
            authTime: core.clock.now
        ).0
        response.issuedTokenType = TokenType.accessToken
        return response
    }

    /// Auth0's Native to Web SSO: the client's refresh token traded for a session transfer token, which
    /// `/authorize` honours once, for a client that accepts it, within 60 seconds. The refresh token is redeemed
    /// as a refresh grant redeems it (rotation and reuse detection included): a rotated one comes back in the
    /// answer. The transfer token comes as `access_token`, with `token_type` `N_A`.
    private func sessionTransfer(_ refreshToken: String, type: String) async throws(OAuthError) -> TokenResponse {
        guard type == TokenType.refreshToken else {
            throw OAuthError(.invalidRequest, "A session transfer token is issued for a refresh token only.")
        }
        guard client.canCreateSessionTransferTokens else {
            throw OAuthError(
                .unauthorizedClient, "Client '\(client.id)' may not create session transfer tokens.")
        }
        let outcome = await core.state.redeemRefreshToken(
            refreshToken, clientID: client.id, rotation: core.configuration.refreshTokenRotation,
            lifetimes: core.configuration.lifetimes)
        switch outcome {
        case .refused(let error):
            throw error
        case .accepted(let grant, let newRefreshToken):
            guard let userID = grant.userID else {
                throw OAuthError(.invalidGrant, "The refresh token belongs to no user.")
            }
            let token = core.sessionTransfers.issue(for: userID, now: core.clock.now)
            return TokenResponse(
                accessToken: token, tokenType: "N_A", expiresIn: Int(SessionTransfers.lifetime), scope: "",
                idToken: nil, refreshToken: newRefreshToken, issuedTokenType: TokenType.sessionTransferToken)
        }
    }

    /// The user behind a subject token, after checking it is ours, unexpired and (for access tokens) unrevoked.
    private func subject(_ token: String, type: String) async throws(OAuthError) -> String {
        let invalid = OAuthError(.invalidGrant, "The subject_token is invalid, expired or revoked.")
        if type == TokenType.accessToken {
            guard let claims = await AccessTokenValidator(core: core).validate(token), claims.gty == nil else {
                throw invalid
            }
            return claims.sub
        }
        let now = core.clock.now
        guard let claims = try? await core.keys.verify(token, as: SubjectTokenClaims.self, now: now),
            claims.iss == core.issuer, claims.exp > now.epochSeconds, claims.aud.value.contains(client.id),
            await core.state.user(id: claims.sub) != nil
        else { throw invalid }
        return claims.sub
    }
}
