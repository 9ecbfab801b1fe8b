extension AuthEmulator {
    /// How a client learns that the user decided on a backchannel authentication request (OpenID CIBA Core 1.0
    /// section 5, client metadata `backchannel_token_delivery_mode`).
    ///
    /// The emulator supports ``poll`` and ``ping``; ``AuthEmulator/Configuration`` validation refuses any other value
    /// (push, which delivers the tokens themselves to the client, is not implemented).
    public struct BackchannelTokenDeliveryMode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The wire value: `poll` or `ping`.
        public var rawValue: String

        /// Wraps a wire value.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Decodes the mode from its wire string.
        public init(from decoder: any Decoder) throws {
            self.rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Encodes the wire string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

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
