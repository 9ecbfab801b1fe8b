import Foundation
import JWTKit

/// The claims of a logout token (OIDC Back-Channel Logout 1.0 §2.4).
struct LogoutTokenClaims: JWTPayload, Equatable {
    /// The member of `events` that marks a JWT as a logout token.
    static let backchannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    var iss: String
    var aud: String
    var iat: Int
    var exp: Int
    var jti: String
    /// `{"http://schemas.openid.net/event/backchannel-logout": {}}`; `nil` only for a deliberately broken token.
    var events: [String: [String: String]]?
    var sub: String?
    var sid: String?
    /// Never set on a correct token (§2.4 forbids it); only ``AuthEmulator/LogoutTokenAlteration/nonce`` sets it.
    var nonce: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// What a logout token says: who is logged out of which client, and in which session.
struct LogoutMessage: Sendable, Equatable {
    var clientID: String
    /// The user, when known; sent whenever it is.
    var subject: String?
    /// The SSO session that ended, when one did.
    var sid: String?
    var alteration: AuthEmulator.LogoutTokenAlteration = .none
}

/// Mints logout tokens, signed as the client's ID tokens are (same key and algorithm, or HS256 with the secret),
/// with the header `typ: logout+jwt` the specification recommends (§2.4, explicit typing).
struct LogoutTokenMinter: Sendable {
    let core: EmulatorCore

    /// Seconds from `iat` to `exp` (§2.4 recommends "a few minutes").
    static let lifetime: Double = 120
    /// The explicit type of a logout token.
    static let type = "logout+jwt"

    func mint(_ message: LogoutMessage, for client: AuthEmulator.Client) async throws -> String {
        let change = message.alteration
        let issuedAt = change.issuedAt ?? core.clock.now
        let claims = LogoutTokenClaims(
            iss: change.issuer ?? core.issuer,
            aud: change.audience ?? client.id,
            iat: issuedAt.epochSeconds,
            exp: issuedAt.addingTimeInterval(change.lifetime ?? Self.lifetime).epochSeconds,
            jti: change.jti ?? SecureRandom.token(byteCount: 16),
            events: change.omitsEvents ? nil : [LogoutTokenClaims.backchannelLogoutEvent: [:]],
            sub: message.subject,
            sid: message.sid,
            nonce: change.nonce
        )
        var header = JWTHeader()
        header.typ = change.type ?? Self.type
        if change.signsWithUnpublishedKey {
            return try await core.keys.signWithUnpublishedKey(claims, header: header)
        }
        return try await IDTokenSigning(core: core).sign(claims, for: client, header: header)
    }
}
