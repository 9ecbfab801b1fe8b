/// Token type identifiers of RFC 8693 §3, used by token exchange and as revocation hints.
public struct TokenType: RawRepresentable, Hashable, Sendable {
    /// The URN, such as `urn:ietf:params:oauth:token-type:access_token`.
    public let rawValue: String

    /// Creates a token type from its URN.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// An OAuth access token.
    public static let accessToken = TokenType(rawValue: "urn:ietf:params:oauth:token-type:access_token")
    /// An OAuth refresh token.
    public static let refreshToken = TokenType(rawValue: "urn:ietf:params:oauth:token-type:refresh_token")
    /// An OpenID Connect ID token.
    public static let idToken = TokenType(rawValue: "urn:ietf:params:oauth:token-type:id_token")
    /// A JWT.
    public static let jwt = TokenType(rawValue: "urn:ietf:params:oauth:token-type:jwt")

    /// The RFC 7009 `token_type_hint` for this type.
    var revocationHint: String {
        switch self {
        case .refreshToken: "refresh_token"
        case .accessToken: "access_token"
        default: rawValue
        }
    }
}
