extension AuthEmulator {
    /// An API a client may get access tokens for with a refresh token issued for another audience, and the scopes
    /// it may ask for there: Auth0's Multi-Resource Refresh Token policies (`refresh_token.policies`).
    ///
    /// A refresh grant that names an `audience` other than its sign-in's is served only when one of the client's
    /// policies names that API; its scopes are the requested ones within the policy (all of the policy's when
    /// none are named), with the sign-in's OpenID Connect scopes. Anything else is refused with
    /// `access_denied` or `invalid_scope`, and the refresh token is not spent.
    public struct RefreshTokenPolicy: Sendable, Codable, Equatable {
        /// The API identifier (an ``API/identifier``).
        public var audience: String
        /// The scopes of that API the client may ask for.
        public var scopes: [String]

        /// Creates a policy.
        public init(audience: String, scopes: [String]) {
            self.audience = audience
            self.scopes = scopes
        }

        /// The whole of `api`.
        public init(_ api: API) {
            self.init(audience: api.identifier, scopes: api.scopes)
        }
    }
}
