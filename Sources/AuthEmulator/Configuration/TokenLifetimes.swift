extension AuthEmulator {
    /// How long each kind of token or code lives, in seconds of the emulator's clock.
    ///
    /// The defaults are Auth0's: access tokens one day, ID tokens ten hours, refresh tokens 15 days idle and
    /// 30 days absolute, authorization codes 60 seconds, device codes 15 minutes polled every 5 seconds, pushed
    /// authorization requests 60 seconds, backchannel authentication requests 2 minutes polled every 5 seconds.
    public struct TokenLifetimes: Sendable, Codable, Equatable {
        /// Lifetime of an access token (`expires_in`). Default 86 400.
        public var accessToken: Double
        /// Lifetime of an ID token. Default 36 000.
        public var idToken: Double
        /// A refresh token unused for this long expires. Default 1 296 000 (15 days).
        public var refreshTokenIdle: Double
        /// A sign-in's refresh tokens all expire this long after the sign-in. Default 2 592 000 (30 days).
        public var refreshTokenAbsolute: Double
        /// Lifetime of an authorization code. Default 60.
        public var authorizationCode: Double
        /// Lifetime of a device code and its user code. Default 900.
        public var deviceCode: Double
        /// The minimum polling interval a device is told, in whole seconds. Default 5.
        public var devicePollInterval: Int
        /// Lifetime of a pushed authorization request's `request_uri` (RFC 9126 `expires_in`). Default 60.
        public var pushedRequest: Double
        /// Lifetime of a backchannel authentication request's `auth_req_id` (OpenID CIBA `expires_in`). Default 120.
        public var backchannelRequest: Double
        /// The minimum polling interval a backchannel authentication request is told, in whole seconds. Default 5.
        public var backchannelPollInterval: Int

        /// Creates lifetimes; every argument has the default described on its property.
        public init(
            accessToken: Double = 86_400,
            idToken: Double = 36_000,
            refreshTokenIdle: Double = 1_296_000,
            refreshTokenAbsolute: Double = 2_592_000,
            authorizationCode: Double = 60,
            deviceCode: Double = 900,
            devicePollInterval: Int = 5,
            pushedRequest: Double = 60,
            backchannelRequest: Double = 120,
            backchannelPollInterval: Int = 5
        ) {
            self.accessToken = accessToken
            self.idToken = idToken
            self.refreshTokenIdle = refreshTokenIdle
            self.refreshTokenAbsolute = refreshTokenAbsolute
            self.authorizationCode = authorizationCode
            self.deviceCode = deviceCode
            self.devicePollInterval = devicePollInterval
            self.pushedRequest = pushedRequest
            self.backchannelRequest = backchannelRequest
            self.backchannelPollInterval = backchannelPollInterval
        }

        private enum CodingKeys: String, CodingKey {
            case accessToken, idToken, refreshTokenIdle, refreshTokenAbsolute, authorizationCode
            case deviceCode, devicePollInterval, pushedRequest
            case backchannelRequest, backchannelPollInterval
        }

        /// Decodes lifetimes; every key is optional.
        public init(from decoder: any Decoder) throws {
            let d = TokenLifetimes()
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.accessToken = try c.decodeIfPresent(Double.self, forKey: .accessToken) ?? d.accessToken
            self.idToken = try c.decodeIfPresent(Double.self, forKey: .idToken) ?? d.idToken
            self.refreshTokenIdle = try c.decodeIfPresent(Double.self, forKey: .refreshTokenIdle) ?? d.refreshTokenIdle
            self.refreshTokenAbsolute =
                try c.decodeIfPresent(Double.self, forKey: .refreshTokenAbsolute) ?? d.refreshTokenAbsolute
            self.authorizationCode =
                try c.decodeIfPresent(Double.self, forKey: .authorizationCode) ?? d.authorizationCode
            self.deviceCode = try c.decodeIfPresent(Double.self, forKey: .deviceCode) ?? d.deviceCode
            self.devicePollInterval =
                try c.decodeIfPresent(Int.self, forKey: .devicePollInterval) ?? d.devicePollInterval
            self.pushedRequest = try c.decodeIfPresent(Double.self, forKey: .pushedRequest) ?? d.pushedRequest
            self.backchannelRequest =
                try c.decodeIfPresent(Double.self, forKey: .backchannelRequest) ?? d.backchannelRequest
            self.backchannelPollInterval =
                try c.decodeIfPresent(Int.self, forKey: .backchannelPollInterval) ?? d.backchannelPollInterval
        }
    }

    /// Refresh-token rotation as Auth0 implements it.
    ///
    /// With rotation on, every refresh returns a new refresh token and the presented one is spent. Presenting the
    /// most recently spent token again within `reuseInterval` seconds still works (it returns a fresh pair, so a
    /// client whose response was lost can retry); any other spent token, or one presented after the interval, is
    /// treated as theft and every refresh token of the same sign-in (the family) is revoked.
    public struct RefreshTokenRotation: Sendable, Codable, Equatable {
        /// Whether refresh tokens rotate. Default `true`.
        public var enabled: Bool
        /// Seconds during which a spent refresh token may be presented again. Default 0, as Auth0.
        public var reuseInterval: Double

        /// Creates a rotation policy.
        public init(enabled: Bool = true, reuseInterval: Double = 0) {
            self.enabled = enabled
            self.reuseInterval = reuseInterval
        }

        private enum CodingKeys: String, CodingKey { case enabled, reuseInterval }

        /// Decodes a rotation policy; every key is optional.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
            self.reuseInterval = try c.decodeIfPresent(Double.self, forKey: .reuseInterval) ?? 0
        }
    }
}
