import Foundation

/// One sign-in (or one client-credentials issuance): the family every refresh token descends from.
struct GrantRecord: Sendable, Codable, Equatable {
    var id: String
    var userID: String?
    var clientID: String
    /// The scopes granted at sign-in; refreshes may narrow, never widen, them.
    var scopes: [String]
    var audience: String?
    var createdAt: Date
    var authTime: Date?
    var nonce: String?
    /// The `sid` of the SSO session the sign-in happened in; `nil` for grants without a browser session
    /// (password, device code, token exchange, client credentials). Every ID token of the family carries it.
    var sid: String?
    var revoked: Bool = false
    /// The authentication context class of the sign-in (`acr`), when one was asked for.
    var acr: String?
    /// The digest of the refresh token rotated most recently: the only spent token that may be presented
    /// again within the reuse interval (Auth0: "only the previous token can be reused").
    var lastRotatedDigest: String?
    /// The thumbprint of the DPoP key a public client signed in with: its refresh tokens work only with proofs of
    /// that key (RFC 9449 section 5).
    var dpopJKT: String?
}

/// A refresh token, stored by the SHA-256 of its value.
struct RefreshTokenRecord: Sendable, Codable, Equatable {
    var digest: String
    var grantID: String
    var createdAt: Date
    var lastUsedAt: Date
    /// When rotation spent this token; a second use after the reuse interval revokes the family.
    var spentAt: Date?
}

/// An issued access token's `jti`, so revocation also stops it at `/userinfo` and the Management API.
struct AccessTokenRecord: Sendable, Codable, Equatable {
    var jti: String
    var grantID: String
    var expiresAt: Date
}

/// An authorization code awaiting redemption, stored by the SHA-256 of its value.
struct AuthorizationCodeRecord: Sendable, Codable, Equatable {
    var digest: String
    var clientID: String
    var redirectURI: String
    var codeChallenge: String?
    var userID: String
    var scopes: [String]
    var audience: String?
    var nonce: String?
    var authTime: Date
    var expiresAt: Date
    /// The `sid` of the SSO session that approved the code.
    var sid: String?
    var redeemed: Bool = false
    /// The authentication context class the sign-in met: the first `acr_values` asked for, since the emulator
    /// has no second factor and takes a sign-in that asked for one as having met it.
    var acr: String?
    /// The grant the code produced, revoked if the code is presented again.
    var grantID: String?
    /// The thumbprint of the DPoP key the pushed authorization request was made with: the code is redeemed only
    /// with a proof of the same key (RFC 9449 section 10.1). `nil` for a request without a proof.
    var dpopJKT: String?
}

/// A device authorization (RFC 8628) and where it stands.
struct DeviceCodeRecord: Sendable, Codable, Equatable {
    enum Status: Sendable, Codable, Equatable {
        case pending
        case approved(userID: String, authTime: Date)
        case denied
        case consumed
    }

    var digest: String
    var userCode: String
    var clientID: String
    var scopes: [String]
    var audience: String?
    var expiresAt: Date
    var interval: Int
    var lastPolledAt: Date?
    var status: Status = .pending
}

/// An emulator browser (SSO) session, set by the sign-in form or test mode, keyed by the digest of its cookie.
struct BrowserSession: Sendable, Codable, Equatable {
    var userID: String
    var authTime: Date
    /// The public session id, `sid` in ID and logout tokens (OIDC Back-Channel Logout 1.0 §2.1). Random and
    /// unrelated to the cookie, so a token that names the session never reveals the cookie.
    var sid: String

    init(userID: String, authTime: Date, sid: String = SecureRandom.token(byteCount: 16)) {
        self.userID = userID
        self.authTime = authTime
        self.sid = sid
    }

    private enum CodingKeys: String, CodingKey { case userID, authTime, sid }

    /// Decodes a session; one saved before sessions had a `sid` gets a fresh one.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.userID = try c.decode(String.self, forKey: .userID)
        self.authTime = try c.decode(Date.self, forKey: .authTime)
        self.sid = try c.decodeIfPresent(String.self, forKey: .sid) ?? SecureRandom.token(byteCount: 16)
    }
}
