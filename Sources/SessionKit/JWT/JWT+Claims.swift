import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension JWT {
    /// The issuer (`iss`).
    public var issuer: String? { claims["iss"]?.stringValue }
    /// The subject (`sub`): the user's id at the issuer.
    public var subject: String? { claims["sub"]?.stringValue }
    /// The audiences (`aud`), whether the token carries one string or an array.
    public var audience: [String] { self["aud"].stringArray ?? [] }
    /// The expiry (`exp`).
    public var expiresAt: Date? { self["exp"].date }
    /// When the token was issued (`iat`).
    public var issuedAt: Date? { self["iat"].date }
    /// The time before which the token must not be accepted (`nbf`).
    public var notBefore: Date? { self["nbf"].date }
    /// The token's unique id (`jti`).
    public var identifier: String? { claims["jti"]?.stringValue }
    /// The nonce the client sent with the authorization request (`nonce`).
    public var nonce: String? { claims["nonce"]?.stringValue }
    /// The client the token was issued to (`azp`).
    public var authorizedParty: String? { claims["azp"]?.stringValue }
    /// When the user last authenticated (`auth_time`).
    public var authenticationTime: Date? { self["auth_time"].date }
    /// `sid`: the provider's session id (OpenID Connect Front- and Back-Channel Logout), shared by every token
    /// of one sign-on session at the provider.
    public var sessionID: String? { claims["sid"]?.stringValue }
    /// The granted scopes: `scope` as RFC 8693 and RFC 9068 write it (one space-separated string), split, or as an
    /// array of strings, as some providers write it in ID tokens (idpyoidc).
    public var scopes: [String] {
        if let text = claims["scope"]?.stringValue { return text.split(separator: " ").map(String.init) }
        return self["scope"].stringArray ?? []
    }
    /// The user's full name (`name`).
    public var name: String? { claims["name"]?.stringValue }
    /// The user's nickname (`nickname`).
    public var nickname: String? { claims["nickname"]?.stringValue }
    /// The user's email address (`email`).
    public var email: String? { claims["email"]?.stringValue }
    /// Whether the email address was verified (`email_verified`).
    public var emailVerified: Bool? { claims["email_verified"]?.boolValue }
    /// The URL of the user's picture (`picture`).
    public var picture: URL? { claims["picture"]?.stringValue.flatMap(URL.init(string:)) }

    /// Registered claims that must have a given JSON type (RFC 7519 §4.1, OIDC Core §2).
    private static let stringClaims = ["iss", "sub", "jti", "nonce", "azp"]
    /// Claims that are one string or an array of strings.
    private static let stringOrArrayClaims = ["aud", "scope"]
    private static let dateClaims = ["exp", "iat", "nbf", "auth_time"]

    static func checkRegisteredClaims(_ claims: [String: JSONValue]) throws(JWTDecodingError) {
        for name in stringClaims {
            if let value = claims[name], value.stringValue == nil {
                throw JWTDecodingError(
                    code: .member, part: .payload, reason: "claim '\(name)' is a \(value.typeName); it must be a string"
                )
            }
        }
        for name in dateClaims {
            if let value = claims[name], value.doubleValue?.isFinite != true {
                throw JWTDecodingError(
                    code: .member, part: .payload,
                    reason:
                        "claim '\(name)' is a \(value.typeName); it must be a number of seconds since 1970 (NumericDate)"
                )
            }
        }
        for name in stringOrArrayClaims {
            if let value = claims[name], Claim(name: name, value: value).stringArray == nil {
                throw JWTDecodingError(
                    code: .member, part: .payload,
                    reason: "claim '\(name)' is a \(value.typeName); it must be a string or an array of strings"
                )
            }
        }
    }
}
