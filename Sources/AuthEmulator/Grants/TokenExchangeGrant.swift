import Foundation
import JWTKit

extension Grants {
    /// RFC 8693 token-type identifiers the emulator accepts and issues.
    enum TokenType {
        static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
        static let idToken = "urn:ietf:params:oauth:token-type:id_token"
    }

    /// `urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693): a still-valid access token or ID token
    /// issued by this emulator is exchanged for new tokens for the same user, optionally for another audience.
    func tokenExchange(_ p: RequestParameters) async throws(OAuthError) -> TokenResponse {
        guard let subjectToken = p["subject_token"], let subjectType = p["subject_token_type"] else {
            throw OAuthError(.invalidRequest, "Missing required parameters: subject_token and subject_token_type")
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
