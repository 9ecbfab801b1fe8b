import Foundation
import JWTKit
import Logging

/// Mints access tokens and ID tokens for a grant, signed with the emulator's current key.
struct TokenIssuer: Sendable {
    let core: EmulatorCore
    /// The DPoP key's thumbprint the access token is bound to (`cnf.jkt`, `token_type` DPoP); `nil` for bearer.
    var dpop: String? = nil

    /// What to issue from: the grant (family), the effective scopes, and extras for the ID token.
    struct Request: Sendable {
        var grant: GrantRecord
        var client: AuthEmulator.Client
        var scopes: [String]
        var refreshToken: String?
        var nonce: String?
    }

    /// Issues the tokens and the response body; records the access token's `jti` under the grant.
    func issue(_ request: Request) async throws(OAuthError) -> TokenResponse {
        let now = core.clock.now
        let lifetimes = core.configuration.lifetimes
        var user: AuthEmulator.User?
        if let userID = request.grant.userID {
            user = await core.state.user(id: userID)
        }
        var audiences: [String] = []
        if let audience = request.grant.audience { audiences.append(audience) }
        if user != nil, request.scopes.contains("openid") || audiences.isEmpty {
            audiences.append(core.userinfoAudience)
        }
        let jti = SecureRandom.token(byteCount: 16)
        let expiresAt = now.addingTimeInterval(lifetimes.accessToken)
        let claims = AccessTokenClaims(
            iss: core.issuer,
            sub: user?.id ?? "\(request.client.id)@clients",
            aud: AudienceClaim(value: audiences),
            iat: now.epochSeconds,
            exp: expiresAt.epochSeconds,
            scope: request.scopes.joined(separator: " "),
            jti: jti,
            azp: request.client.id,
            gty: user == nil ? "client-credentials" : nil,
            cnf: dpop.map { AccessTokenClaims.Confirmation(jkt: $0) }
        )
        var response = TokenResponse(
            accessToken: try await sign(claims),
            expiresIn: Int(lifetimes.accessToken),
            scope: request.scopes.joined(separator: " "),
            refreshToken: request.refreshToken
        )
        if dpop != nil { response.tokenType = "DPoP" }
        await core.state.recordAccessToken(jti: jti, grantID: request.grant.id, expiresAt: expiresAt)
        if let user, request.scopes.contains("openid") {
            response.idToken = try await idToken(for: user, request: request, now: now)
        }
        return response
    }

    private func idToken(for user: AuthEmulator.User, request: Request, now: Date) async throws(OAuthError) -> String {
        let scopes = Set(request.scopes)
        let inToken = core.configuration.profileClaimsInIDToken
        let profile = inToken && scopes.contains("profile")
        let email = inToken && scopes.contains("email")
        let claims = IDTokenClaims(
            iss: core.issuer,
            sub: user.id,
            aud: request.client.id,
            iat: now.epochSeconds,
            exp: now.addingTimeInterval(core.configuration.lifetimes.idToken).epochSeconds,
            azp: request.client.id,
            nonce: request.nonce,
            authTime: request.grant.authTime?.epochSeconds,
            name: profile ? user.name : nil,
            nickname: profile ? user.nickname : nil,
            picture: profile ? user.picture : nil,
            email: email ? user.email : nil,
            emailVerified: email ? user.emailVerified : nil,
            sid: request.grant.sid,
            acr: request.grant.acr
        )
        do {
            return try await IDTokenSigning(core: core).sign(claims, for: request.client)
        } catch {
            core.logger.error("ID token signing failed", metadata: ["error": "\(type(of: error))"])
            throw OAuthError(.serverError, "The ID token could not be signed.")
        }
    }

    private func sign(_ payload: some JWTPayload) async throws(OAuthError) -> String {
        do {
            return try await core.keys.sign(payload)
        } catch {
            core.logger.error("Token signing failed", metadata: ["error": "\(type(of: error))"])
            throw OAuthError(.serverError, "The token could not be signed.")
        }
    }
}
