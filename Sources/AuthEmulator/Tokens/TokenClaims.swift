import JWTKit

/// The claims of an emulator access token (a JWT, as Auth0 issues for an API audience).
struct AccessTokenClaims: JWTPayload, Equatable {
    var iss: String
    var sub: String
    var aud: AudienceClaim
    var iat: Int
    var exp: Int
    var scope: String
    var jti: String
    var azp: String
    /// `client-credentials` for machine-to-machine tokens, as Auth0 marks them.
    var gty: String?
    /// The key a DPoP-bound token is bound to (RFC 9449 section 6).
    var cnf: Confirmation?

    /// A token's confirmation claim: the thumbprint of its DPoP key.
    struct Confirmation: Codable, Equatable, Sendable {
        var jkt: String
    }

    /// Signature only: expiry and audience are checked by the caller against the emulator clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    var scopes: [String] { scope.split(separator: " ").map(String.init) }
}

/// The claims of an OpenID Connect ID token (OIDC Core §2, §5.1).
struct IDTokenClaims: JWTPayload, Equatable {
    var iss: String
    var sub: String
    var aud: String
    var iat: Int
    var exp: Int
    var azp: String
    var nonce: String?
    var authTime: Int?
    var name: String?
    var nickname: String?
    var picture: String?
    var updatedAt: String?
    var email: String?
    var emailVerified: Bool?
    /// The SSO session the sign-in happened in, as Auth0's ID tokens carry it (Back-Channel Logout 1.0 §2.1).
    var sid: String?
    /// The authentication context class the sign-in met, when one was asked for (OIDC Core §2).
    var acr: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, azp, nonce, name, nickname, picture, email, sid, acr
        case authTime = "auth_time"
        case updatedAt = "updated_at"
        case emailVerified = "email_verified"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The common claims of any token this emulator signed, for validating a token-exchange subject.
struct SubjectTokenClaims: JWTPayload {
    var iss: String
    var sub: String
    var aud: AudienceClaim
    var exp: Int
    var jti: String?
    var scope: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
