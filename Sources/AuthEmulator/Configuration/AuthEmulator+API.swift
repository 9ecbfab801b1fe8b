extension AuthEmulator {
    /// A resource server that an `audience` parameter may name, with the scopes it defines.
    ///
    /// The Management API (`<issuer>api/v2/`) is always present and is not listed here.
    public struct API: Sendable, Codable, Equatable {
        /// The API identifier, used as `audience` and as the access token's `aud`.
        public var identifier: String
        /// The scopes the API defines; requested scopes outside this list are dropped.
        public var scopes: [String]

        /// Creates an API.
        public init(identifier: String, scopes: [String]) {
            self.identifier = identifier
            self.scopes = scopes
        }

        /// The seeded demo API's identifier.
        public static let demoIdentifier = "https://api.sessionkit.example/"

        /// The seeded demo API, with `read:data` and `write:data`.
        public static let demo = API(identifier: demoIdentifier, scopes: ["read:data", "write:data"])

        /// The seeded second API's identifier: another service the same sign-in calls.
        public static let paymentsIdentifier = "https://payments.sessionkit.example/"

        /// The seeded second API, with `read:payments` and `pay`; the seeded clients' refresh tokens reach it.
        public static let payments = API(identifier: paymentsIdentifier, scopes: ["read:payments", "pay"])

        /// The Management API scopes the emulator grants a signed-in user's token when requested: their own user.
        public static let managementScopes = ["read:current_user", "update:current_user_metadata"]

        /// The Management API scopes a client-credentials token may carry, through a ``ClientGrant``: every user.
        public static let managementClientScopes = ["read:users", "update:users"]
    }
}
