extension AuthEmulator {
    /// How a client learns that the user decided on a backchannel authentication request (OpenID CIBA Core 1.0
    /// section 5, client metadata `backchannel_token_delivery_mode`).
    ///
    /// The emulator supports ``poll`` and ``ping``; ``AuthEmulator/Configuration`` validation refuses any other value
    /// (push, which delivers the tokens themselves to the client, is not implemented).
    public struct BackchannelTokenDeliveryMode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The wire value: `poll` or `ping`.
        public var rawValue: String

        /// Wraps a wire value. In JSON it is that string (the standard library's `Codable` for a `String` raw value).
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The wire value.
        public var description: String { rawValue }

        /// The client polls the token endpoint until the user decides (the default).
        public static let poll = BackchannelTokenDeliveryMode(rawValue: "poll")
        /// The emulator posts `{"auth_req_id": ...}` to the client's notification endpoint once the user decides,
        /// with the request's `client_notification_token` as a bearer token; the client then calls the token endpoint
        /// as in poll mode (and may keep polling as a fallback).
        public static let ping = BackchannelTokenDeliveryMode(rawValue: "ping")

        /// The modes the emulator implements, as discovery lists them.
        public static let allSupported: [BackchannelTokenDeliveryMode] = [.poll, .ping]
    }
}
