extension AuthEmulator {
    /// What a confidential client may get with `client_credentials` for one API, as an Auth0 "client grant"
    /// (an application authorized for an API, with the scopes it was given).
    ///
    /// The Management API is reached by client credentials only through a client grant: its machine-to-machine
    /// scopes (``API/managementClientScopes``: `read:users`, `update:users`) reach every user. Another API without
    /// a client grant for the client gives all of its scopes, as the emulator always did.
    public struct ClientGrant: Sendable, Codable, Equatable {
        /// The API's identifier (the `audience`), or `nil` for the tenant's Management API, whose identifier
        /// (`<issuer>api/v2/`) is known only once the emulator listens.
        public var audience: String?
        /// The scopes the client may get; a request for others gets only these.
        public var scopes: [String]

        /// A grant of `scopes` on the API `audience` (`nil`: the Management API).
        public init(audience: String?, scopes: [String]) {
            self.audience = audience
            self.scopes = scopes
        }

        /// The Management API with `read:users` and `update:users`: what a back end needs to read and edit its
        /// users' profiles (SessionKitBFF's `/auth/profile`).
        public static let managementUsers = ClientGrant(audience: nil, scopes: API.managementClientScopes)
    }
}
