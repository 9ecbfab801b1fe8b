import Foundation
import JWTKit
import SessionKitSupport

/// A verified `id_token_hint` (OIDC RP-Initiated Logout 1.0 §2): an ID token this emulator signed, for one of its
/// clients. Its expiry is not checked, as the specification allows: a hint is usually presented after the token
/// expired.
struct IDTokenHint: Sendable, Equatable {
    /// The user, `sub`.
    var subject: String
    /// The client the token was issued to, its single `aud`.
    var clientID: String
    /// The SSO session the token names, `sid`; `nil` for tokens of grants without a browser session.
    var sid: String?

    /// The hint in `token`, or `nil` when the token is malformed, signed by no key of this emulator (nor with the
    /// secret of the client it names), issued by another issuer, or not an ID token (access tokens carry a
    /// `scope` and are addressed to APIs, not clients).
    static func verify(_ token: String, core: EmulatorCore) async -> IDTokenHint? {
        let audience = unverifiedClaims(of: token)?.aud?.value.first
        guard
            let claims = try? await IDTokenSigning(core: core).verify(token, as: Claims.self, audience: audience),
            claims.iss == core.issuer, claims.scope == nil, claims.aud.value.count == 1,
            let clientID = claims.aud.value.first, core.client(id: clientID) != nil
        else { return nil }
        return IDTokenHint(subject: claims.sub, clientID: clientID, sid: claims.sid)
    }

    /// The claims a hint must have.
    private struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: AudienceClaim
        var sid: String?
        var scope: String?

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The audience of a token read without verifying it, only to find which client's secret may have signed it.
    private struct Peek: Decodable {
        var aud: AudienceClaim?
    }

    private static func unverifiedClaims(of token: String) -> Peek? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        guard let data = Base64URL.decode(parts[1]) else { return nil }
        return try? JSONDecoder().decode(Peek.self, from: data)
    }
}
