extension AuthEmulator {
    /// An application registered with the emulator, as an Auth0 "application".
    ///
    /// A client without a ``secret`` is public (a native or single-page app); one with a secret is confidential
    /// and must authenticate at the token endpoint with `client_secret_post` or `client_secret_basic`.
    public struct Client: Sendable, Codable, Equatable, CustomStringConvertible {
        /// The `client_id`.
        public var id: String
        /// A display name.
        public var name: String
        /// The client secret, or `nil` for a public client.
        public var secret: String?
        /// The grant types this client may use at `/oauth/token`.
        public var grantTypes: [GrantType]
        /// Allowed redirect URIs. For loopback IP URIs (`127.0.0.1`, `[::1]`) any port matches (RFC 8252 §7.3).
        public var redirectURIs: [String]
        /// When `true`, the client's ID tokens are signed HS256 with its secret (which must be at least 32 bytes).
        /// Such tokens carry no `kid`: their key is the secret, not a published JWK.
        public var signsIDTokensWithSecret: Bool
        /// Where `/oidc/logout` may send the browser afterwards (`post_logout_redirect_uri`, OIDC RP-Initiated
        /// Logout 1.0 §3). Matched as ``redirectURIs`` are: exactly, or a loopback IP URI on any port with the
        /// same path.
        public var postLogoutRedirectURIs: [String]
        /// The client's Back-Channel Logout URI (OIDC Back-Channel Logout 1.0 §2.2): an `http` or `https` URL
        /// that receives a logout token by `POST` when a session it was issued tokens in ends. `nil` (the
        /// default) sends nothing. ``AuthEmulator/Controls/setBackchannelLogoutURI(_:forClient:)`` replaces it
        /// at run time, for receivers that learn their port only once they listen.
        public var backchannelLogoutURI: String?
        /// The other APIs its refresh tokens may get access tokens for (Auth0's Multi-Resource Refresh Token);
        /// empty (the default) allows only the sign-in's own audience.
        public var refreshTokenPolicies: [RefreshTokenPolicy]
        /// The APIs it may get client-credentials tokens for, and with which scopes (Auth0's client grants); the
        /// Management API only through one. Empty by default.
        public var clientGrants: [ClientGrant]
        /// Whether `/authorize` accepts this client's sign-ins only through a pushed authorization request
        /// (RFC 9126 client metadata `require_pushed_authorization_requests`): without a `request_uri` it answers
        /// `invalid_request`. Off by default; ``AuthEmulator/Controls/setPushedAuthorizationRequired(_:forClient:)``
        /// changes it at run time. While any client requires it, discovery says so too.
        public var requiresPushedAuthorizationRequests: Bool
        /// Whether the client may trade its refresh token for a session transfer token (Auth0's Native to Web SSO,
        /// `can_create_session_transfer_token`): a token exchange with `requested_token_type`
        /// `urn:auth0:params:oauth:token-type:session_transfer_token`. Off by default; on for the seeded native
        /// client.
        public var canCreateSessionTransferTokens: Bool
        /// Whether `/authorize` for this client signs the user in with a `session_transfer_token` parameter
        /// (Auth0's `allowed_authentication_methods: ["query"]`). Off by default; on for the seeded confidential
        /// client, the web app's back end.
        public var acceptsSessionTransferTokens: Bool
        /// How the client learns of a user's decision on a backchannel authentication request (OpenID CIBA Core 1.0
        /// client metadata `backchannel_token_delivery_mode`): ``BackchannelTokenDeliveryMode/poll`` (the default)
        /// or ``BackchannelTokenDeliveryMode/ping``, which needs ``backchannelClientNotificationEndpoint``.
        public var backchannelTokenDeliveryMode: BackchannelTokenDeliveryMode
        /// Where a ping-mode client receives its notifications (`backchannel_client_notification_endpoint`): an
        /// `https` URL, or `http` on a loopback host (`127.0.0.1`, `::1`, `localhost`) for tests. `nil` (the default)
        /// for a poll-mode client. ``AuthEmulator/Controls/setBackchannelNotificationEndpoint(_:forClient:)`` sets it
        /// (and the mode) at run time, for receivers that learn their port only once they listen.
        public var backchannelClientNotificationEndpoint: String?

        /// Creates a client.
        public init(
            id: String,
            name: String,
            secret: String? = nil,
            grantTypes: [GrantType] = GrantType.allSupported,
            redirectURIs: [String] = [],
            signsIDTokensWithSecret: Bool = false,
            postLogoutRedirectURIs: [String] = [],
            backchannelLogoutURI: String? = nil,
            refreshTokenPolicies: [RefreshTokenPolicy] = [],
            clientGrants: [ClientGrant] = [],
            requiresPushedAuthorizationRequests: Bool = false,
            canCreateSessionTransferTokens: Bool = false,
            acceptsSessionTransferTokens: Bool = false,
            backchannelTokenDeliveryMode: BackchannelTokenDeliveryMode = .poll,
            backchannelClientNotificationEndpoint: String? = nil
        ) {
            self.id = id
            self.name = name
            self.secret = secret
            self.grantTypes = grantTypes
            self.redirectURIs = redirectURIs
            self.signsIDTokensWithSecret = signsIDTokensWithSecret
            self.postLogoutRedirectURIs = postLogoutRedirectURIs
            self.backchannelLogoutURI = backchannelLogoutURI
            self.refreshTokenPolicies = refreshTokenPolicies
            self.clientGrants = clientGrants
            self.requiresPushedAuthorizationRequests = requiresPushedAuthorizationRequests
            self.canCreateSessionTransferTokens = canCreateSessionTransferTokens
            self.acceptsSessionTransferTokens = acceptsSessionTransferTokens
            self.backchannelTokenDeliveryMode = backchannelTokenDeliveryMode
            self.backchannelClientNotificationEndpoint = backchannelClientNotificationEndpoint
        }

        /// Whether the client is public (has no secret).
        public var isPublic: Bool { secret == nil }

        /// The client without its secret.
        public var description: String {
            let kind = isPublic ? "public" : "confidential, secret <REDACTED>"
            return "Client(\(id), \(name), \(kind))"
        }

        private enum CodingKeys: String, CodingKey {
            case id, name, secret, grantTypes, redirectURIs, signsIDTokensWithSecret, postLogoutRedirectURIs
            case backchannelLogoutURI, refreshTokenPolicies, clientGrants, requiresPushedAuthorizationRequests
            case canCreateSessionTransferTokens, acceptsSessionTransferTokens
            case backchannelTokenDeliveryMode, backchannelClientNotificationEndpoint
        }

        /// Decodes a client; only `id` is required.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.id = try c.decode(String.self, forKey: .id)
            self.name = try c.decodeIfPresent(String.self, forKey: .name) ?? id
            self.secret = try c.decodeIfPresent(String.self, forKey: .secret)
            self.grantTypes = try c.decodeIfPresent([GrantType].self, forKey: .grantTypes) ?? GrantType.allSupported
            self.redirectURIs = try c.decodeIfPresent([String].self, forKey: .redirectURIs) ?? []
            self.signsIDTokensWithSecret = try c.decodeIfPresent(Bool.self, forKey: .signsIDTokensWithSecret) ?? false
            self.postLogoutRedirectURIs = try c.decodeIfPresent([String].self, forKey: .postLogoutRedirectURIs) ?? []
            self.backchannelLogoutURI = try c.decodeIfPresent(String.self, forKey: .backchannelLogoutURI)
            self.refreshTokenPolicies =
                try c.decodeIfPresent([RefreshTokenPolicy].self, forKey: .refreshTokenPolicies) ?? []
            self.clientGrants = try c.decodeIfPresent([ClientGrant].self, forKey: .clientGrants) ?? []
            self.requiresPushedAuthorizationRequests =
                try c.decodeIfPresent(Bool.self, forKey: .requiresPushedAuthorizationRequests) ?? false
            self.canCreateSessionTransferTokens =
                try c.decodeIfPresent(Bool.self, forKey: .canCreateSessionTransferTokens) ?? false
            self.acceptsSessionTransferTokens =
                try c.decodeIfPresent(Bool.self, forKey: .acceptsSessionTransferTokens) ?? false
            self.backchannelTokenDeliveryMode =
                try c.decodeIfPresent(BackchannelTokenDeliveryMode.self, forKey: .backchannelTokenDeliveryMode) ?? .poll
            self.backchannelClientNotificationEndpoint =
                try c.decodeIfPresent(String.self, forKey: .backchannelClientNotificationEndpoint)
        }
    }
}

extension AuthEmulator.Client {
    /// The seeded public native client's id: `sessionkit-native`.
    public static let nativeID = "sessionkit-native"
    /// The seeded confidential client's id: `sessionkit-backend`.
    public static let confidentialID = "sessionkit-backend"
    /// The seeded confidential client's secret. A public fixture: never use it outside the emulator.
    public static let confidentialSecret = "sessionkit-backend-demo-secret-not-for-production"
    /// The seeded native client's redirect URIs.
    public static let nativeRedirectURIs = ["http://127.0.0.1/callback", "com.example.app://callback"]

    /// The seeded public native client: no secret, every grant but client credentials.
    public static let native = AuthEmulator.Client(
        id: nativeID,
        name: "SessionKit Native",
        grantTypes: AuthEmulator.GrantType.allSupported.filter { $0 != .clientCredentials },
        redirectURIs: nativeRedirectURIs,
        refreshTokenPolicies: [.init(.demo), .init(.payments)],
        canCreateSessionTransferTokens: true
    )

    /// The seeded confidential client: a secret, every grant including client credentials, and a client grant on
    /// the Management API (``AuthEmulator/ClientGrant/managementUsers``) for a back end's profile routes.
    public static let confidential = AuthEmulator.Client(
        id: confidentialID,
        name: "SessionKit Backend",
        secret: confidentialSecret,
        grantTypes: AuthEmulator.GrantType.allSupported,
        // The second is the sign-in callback of a back end for front ends (SessionKitBFF, `sessionkit-bff`).
        redirectURIs: ["http://127.0.0.1/callback", "http://127.0.0.1/auth/callback"],
        // The BFF's home page on any loopback port, where `/oidc/logout` returns the browser.
        postLogoutRedirectURIs: ["http://127.0.0.1/"],
        refreshTokenPolicies: [.init(.demo), .init(.payments)],
        clientGrants: [.managementUsers],
        acceptsSessionTransferTokens: true
    )
}
