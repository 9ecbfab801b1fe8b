extension AuthEmulator {
    /// An OAuth 2.0 grant type as sent in `grant_type`.
    public struct GrantType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The wire value, e.g. `refresh_token`.
        public var rawValue: String

        /// Wraps a wire value. In JSON it is that string (the standard library's `Codable` for a `String` raw value).
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The wire value.
        public var description: String { rawValue }

        /// `authorization_code`.
        public static let authorizationCode = GrantType(rawValue: "authorization_code")
        /// `refresh_token`.
        public static let refreshToken = GrantType(rawValue: "refresh_token")
        /// `password` (Resource Owner Password).
        public static let password = GrantType(rawValue: "password")
        /// Auth0's password grant with a connection: `http://auth0.com/oauth/grant-type/password-realm`.
        public static let passwordRealm = GrantType(rawValue: "http://auth0.com/oauth/grant-type/password-realm")
        /// RFC 8628 device authorization: `urn:ietf:params:oauth:grant-type:device_code`.
        public static let deviceCode = GrantType(rawValue: "urn:ietf:params:oauth:grant-type:device_code")
        /// RFC 8693 token exchange: `urn:ietf:params:oauth:grant-type:token-exchange`.
        public static let tokenExchange = GrantType(rawValue: "urn:ietf:params:oauth:grant-type:token-exchange")
        /// `client_credentials` (confidential clients only).
        public static let clientCredentials = GrantType(rawValue: "client_credentials")
        /// OpenID CIBA Core 1.0 (poll and ping modes): `urn:openid:params:grant-type:ciba` (confidential clients
        /// only); a client without it is refused at `/bc-authorize` too.
        public static let ciba = GrantType(rawValue: "urn:openid:params:grant-type:ciba")

        /// Every grant type the emulator implements.
        public static let allSupported: [GrantType] = [
            .authorizationCode, .refreshToken, .password, .passwordRealm, .deviceCode, .tokenExchange,
            .clientCredentials,
            .ciba,
        ]
    }
}
