import Foundation
import Hummingbird

/// Validates a Bearer access token presented to `/userinfo` or the Management API: signature against the
/// published keys, issuer, expiry on the emulator clock, and that its grant has not been revoked.
struct AccessTokenValidator: Sendable {
    let core: EmulatorCore

    /// The token's claims, or `nil` when it is missing, malformed, expired, revoked or not ours.
    func validate(_ token: String) async -> AccessTokenClaims? {
        let now = core.clock.now
        guard let claims = try? await core.keys.verify(token, as: AccessTokenClaims.self, now: now),
            claims.iss == core.issuer, claims.exp > now.epochSeconds,
            await core.state.isAccessTokenActive(jti: claims.jti)
        else { return nil }
        return claims
    }

    /// The Bearer token of a request, from the `Authorization` header (RFC 6750 §2.1).
    static func bearer(in request: Request) -> String? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return nil
        }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
