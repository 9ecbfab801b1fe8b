public import Foundation

extension AuthEmulator {
    /// Everything that shapes one emulator instance: where it listens, how it signs, how long tokens live,
    /// which clients and users it knows, and which test hooks are on.
    ///
    /// The type is `Codable` so that `sessionkit-emulator serve --config FILE` can load it from JSON. Every key is
    /// optional in JSON: a missing key takes the default shown here.
    ///
    /// ```swift
    /// var configuration = AuthEmulator.Configuration()
    /// configuration.lifetimes.accessToken = 60
    /// configuration.testControlsEnabled = true
    /// let emulator = try await AuthEmulator.start(configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Codable, Equatable {
        /// The address to bind. Defaults to `127.0.0.1`; the emulator is meant for loopback only, and refuses
        /// any other address unless ``allowNonLoopbackHost`` is set.
        public var host: String
        /// Allows a ``host`` that is not a loopback address. Off by default: the emulator publishes its
        /// fixture passwords and, with test controls on, lets anyone who reaches it mint and revoke tokens.
        public var allowNonLoopbackHost: Bool
        /// The port to bind, or `nil` (the default) for a free port chosen by the system.
        public var port: Int?
        /// The algorithm of the emulator's signing keys (RS256 by default).
        public var signingAlgorithm: SigningAlgorithm
        /// Signs ID tokens without a `kid` header, as providers with a single key may (OpenID Connect Core
        /// 10.1). Off by default. Access tokens keep their `kid`.
        public var omitsIDTokenKeyID: Bool
        /// How confidential clients may authenticate: `client_secret_basic`, `client_secret_post` (and `none`
        /// for public clients). Published in discovery; a secret sent any other way is refused with
        /// `invalid_client`, as a provider that registered the client for one method does. All by default.
        public var clientAuthenticationMethods: [String]
        /// How long tokens, codes and device codes live.
        public var lifetimes: TokenLifetimes
        /// Refresh-token rotation and reuse detection.
        public var refreshTokenRotation: RefreshTokenRotation
        /// Seconds an old signing key stays published in the JWKS after a rotation. Defaults to one day.
        public var keyRotationOverlap: Double
        /// When set, `/authorize` signs this user (a user id or an email) in without a form, so a test can
        /// complete the code flow with an HTTP client alone. `nil` (the default) shows the sign-in form.
        public var autoSignInUser: String?
        /// Turns on ``AuthEmulator/controls`` and the `/__emulator/…` HTTP endpoints. Off by default.
        public var testControlsEnabled: Bool
        /// Whether `offline_access` is a scope, as at Auth0 (the default). When `false`, as in
        /// django-oauth-toolkit's defaults, discovery does not list it, a sign-in that asks for it is refused with
        /// `invalid_scope`, and refresh tokens are issued without it.
        public var offlineAccessIsAScope = true
        /// Whether DPoP proofs must carry the emulator's nonce (RFC 9449 section 8): a proof without the nonce in
        /// force is answered `use_dpop_nonce` with a `DPoP-Nonce` header, at the token endpoint (400) and at
        /// `/userinfo` and the Management API (401). Off by default; ``Controls/setDPoPNonceRequired(_:)`` and
        /// ``Controls/rotateDPoPNonce()`` change it at run time.
        public var dpopNonceRequired = false
        /// Whether ID tokens carry the profile and email claims that `profile` and `email` ask for (the default), or
        /// only `/userinfo` answers them, as OpenID Connect Core 5.4 allows when an access token is issued and as
        /// some providers do by default.
        public var profileClaimsInIDToken = true
        /// The issuer the emulator names itself by, when clients reach it through a TLS front or a proxy (for
        /// instance `https://idp.test/`, to try a private certificate authority and an HTTPS proxy); by default
        /// `http://HOST:PORT/`. Every URL it publishes (discovery, tokens' `iss`, endpoints) starts with it.
        public var publicIssuer: String?
        /// A JSON file that keeps grants, users' metadata, signing keys and the clock across restarts.
        public var stateFile: String?
        /// The applications that may ask for tokens.
        public var clients: [Client]
        /// The accounts that may sign in.
        public var users: [User]
        /// The APIs (resource servers) an `audience` may name, besides the built-in Management API.
        public var apis: [API]
        /// Seconds a Back-Channel Logout delivery may take (connect, send, answer) before it is recorded as
        /// timed out. Deliveries run concurrently, so `/oidc/logout` answers within about this long. Default 5.
        public var backchannelLogoutTimeout: Double

        /// Creates a configuration; every argument has the default described on its property.
        public init(
            host: String = "127.0.0.1",
            allowNonLoopbackHost: Bool = false,
            port: Int? = nil,
            signingAlgorithm: SigningAlgorithm = .rs256,
            omitsIDTokenKeyID: Bool = false,
            clientAuthenticationMethods: [String] = Self.allClientAuthenticationMethods,
            lifetimes: TokenLifetimes = .init(),
            refreshTokenRotation: RefreshTokenRotation = .init(),
            keyRotationOverlap: Double = 86_400,
            autoSignInUser: String? = nil,
            testControlsEnabled: Bool = false,
            stateFile: String? = nil,
            clients: [Client] = [.native, .confidential],
            users: [User] = [.alice, .bob],
            apis: [API] = [.demo, .payments],
            backchannelLogoutTimeout: Double = 5
        ) {
            self.host = host
            self.allowNonLoopbackHost = allowNonLoopbackHost
            self.port = port
            self.signingAlgorithm = signingAlgorithm
            self.omitsIDTokenKeyID = omitsIDTokenKeyID
            self.clientAuthenticationMethods = clientAuthenticationMethods
            self.lifetimes = lifetimes
            self.refreshTokenRotation = refreshTokenRotation
            self.keyRotationOverlap = keyRotationOverlap
            self.autoSignInUser = autoSignInUser
            self.testControlsEnabled = testControlsEnabled
            self.stateFile = stateFile
            self.clients = clients
            self.users = users
            self.apis = apis
            self.backchannelLogoutTimeout = backchannelLogoutTimeout
        }

        /// Every client authentication method the emulator knows.
        public static let allClientAuthenticationMethods = ["client_secret_basic", "client_secret_post", "none"]

        /// Loads a configuration from a JSON file; missing keys take their defaults.
        public static func load(contentsOf url: URL) throws -> Configuration {
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw AuthEmulatorError(
                    code: .invalidConfiguration, message: "Cannot read \(url.path)", underlyingError: error)
            }
            do {
                return try JSONDecoder().decode(Configuration.self, from: data)
            } catch {
                throw AuthEmulatorError(
                    code: .invalidConfiguration, message: "\(url.path) is not a valid configuration",
                    underlyingError: error)
            }
        }

        private enum CodingKeys: String, CodingKey {
            case host, allowNonLoopbackHost, port, signingAlgorithm, omitsIDTokenKeyID, clientAuthenticationMethods
            case lifetimes, refreshTokenRotation, keyRotationOverlap
            case autoSignInUser, testControlsEnabled, stateFile, clients, users, apis, backchannelLogoutTimeout
            case offlineAccessIsAScope, dpopNonceRequired, profileClaimsInIDToken, publicIssuer
        }

        /// Decodes a configuration; every key is optional.
        public init(from decoder: any Decoder) throws {
            let defaults = Configuration()
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.host = try c.decodeIfPresent(String.self, forKey: .host) ?? defaults.host
            self.allowNonLoopbackHost = try c.decodeIfPresent(Bool.self, forKey: .allowNonLoopbackHost) ?? false
            self.port = try c.decodeIfPresent(Int.self, forKey: .port)
            self.signingAlgorithm =
                try c.decodeIfPresent(SigningAlgorithm.self, forKey: .signingAlgorithm) ?? defaults.signingAlgorithm
            self.omitsIDTokenKeyID = try c.decodeIfPresent(Bool.self, forKey: .omitsIDTokenKeyID) ?? false
            self.clientAuthenticationMethods =
                try c.decodeIfPresent([String].self, forKey: .clientAuthenticationMethods)
                ?? defaults.clientAuthenticationMethods
            self.lifetimes = try c.decodeIfPresent(TokenLifetimes.self, forKey: .lifetimes) ?? defaults.lifetimes
            self.refreshTokenRotation =
                try c.decodeIfPresent(RefreshTokenRotation.self, forKey: .refreshTokenRotation)
                ?? defaults.refreshTokenRotation
            self.keyRotationOverlap =
                try c.decodeIfPresent(Double.self, forKey: .keyRotationOverlap) ?? defaults.keyRotationOverlap
            self.autoSignInUser = try c.decodeIfPresent(String.self, forKey: .autoSignInUser)
            self.testControlsEnabled = try c.decodeIfPresent(Bool.self, forKey: .testControlsEnabled) ?? false
            self.offlineAccessIsAScope = try c.decodeIfPresent(Bool.self, forKey: .offlineAccessIsAScope) ?? true
            self.dpopNonceRequired = try c.decodeIfPresent(Bool.self, forKey: .dpopNonceRequired) ?? false
            self.profileClaimsInIDToken = try c.decodeIfPresent(Bool.self, forKey: .profileClaimsInIDToken) ?? true
            self.publicIssuer = try c.decodeIfPresent(String.self, forKey: .publicIssuer)
            self.stateFile = try c.decodeIfPresent(String.self, forKey: .stateFile)
            self.clients = try c.decodeIfPresent([Client].self, forKey: .clients) ?? defaults.clients
            self.users = try c.decodeIfPresent([User].self, forKey: .users) ?? defaults.users
            self.apis = try c.decodeIfPresent([API].self, forKey: .apis) ?? defaults.apis
            self.backchannelLogoutTimeout =
                try c.decodeIfPresent(Double.self, forKey: .backchannelLogoutTimeout)
                ?? defaults.backchannelLogoutTimeout
        }
    }

    /// The algorithm of the emulator's own signing keys.
    public enum SigningAlgorithm: String, Sendable, Codable, Equatable {
        /// RSA PKCS#1 v1.5 with SHA-256 and a 2048-bit key, Auth0's default.
        case rs256 = "RS256"
        /// ECDSA on P-256 with SHA-256.
        case es256 = "ES256"
    }
}
