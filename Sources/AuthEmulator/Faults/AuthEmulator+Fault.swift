extension AuthEmulator {
    /// A failure to inject into an endpoint, for testing a client's resilience.
    ///
    /// ```swift
    /// // The next two token requests fail with 503, the third succeeds.
    /// try await emulator.controls.inject(.status(503).times(2), into: .token)
    /// // The next refresh is processed (the token rotates) but the response is lost.
    /// try await emulator.controls.inject(.processThenDrop.only(.refreshToken).times(1), into: .token)
    /// ```
    public struct Fault: Sendable, Codable, Equatable {
        /// What the endpoint does instead of (or after) answering normally.
        public enum Action: String, Sendable, Codable {
            /// Answer normally (useful with `latency` alone).
            case none
            /// Answer with ``Fault/status`` and an OAuth-shaped JSON error body, without processing.
            case status
            /// Answer 200 with a JSON content type and a body that is not valid JSON, without processing.
            case malformedBody
            /// Answer 200 declaring a longer body than is sent, then close the connection, without processing.
            case truncatedBody
            /// Close the connection without any response, without processing.
            case dropConnection
            /// Process the request (state changes happen) and then close the connection without a response.
            case processThenDrop
            /// Answer 200 with the head and the first bytes of a body, then send nothing more for ``Fault/latency``
            /// seconds (5 by default) and close. Without processing.
            case stalledBody
            /// Answer 200 with a JSON body of 2 MiB, larger than any client should accept. Without processing.
            case oversizedBody
            /// Answer 200 with a profile for another user (a `sub` no token names), without processing: a
            /// UserInfo response that OpenID Connect Core §5.3.2 says must not be used.
            case otherSubject
            /// Process the request (state changes happen), then send nothing for ``Fault/latency`` seconds (5 by
            /// default) and close, as when the answer is lost on the way back.
            case processThenStall
        }

        /// What to do.
        public var action: Action
        /// The HTTP status for ``Action/status``.
        public var status: Int?
        /// Seconds of delay added before the action (for the stalling actions: how long they stall). Default 0.
        public var latency: Double
        /// How many matching requests to affect before the fault clears itself ("N failures then success");
        /// `nil` affects every matching request until the faults are cleared.
        public var count: Int?
        /// Restricts the fault to `/oauth/token` requests of this grant type.
        public var grantType: GrantType?

        /// Creates a fault.
        public init(
            action: Action,
            status: Int? = nil,
            latency: Double = 0,
            count: Int? = nil,
            grantType: GrantType? = nil
        ) {
            self.action = action
            self.status = status
            self.latency = latency
            self.count = count
            self.grantType = grantType
        }

        private enum CodingKeys: String, CodingKey { case action, status, latency, count, grantType }

        /// Decodes a fault; only `action` is required.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.action = try c.decode(Action.self, forKey: .action)
            self.status = try c.decodeIfPresent(Int.self, forKey: .status)
            self.latency = try c.decodeIfPresent(Double.self, forKey: .latency) ?? 0
            self.count = try c.decodeIfPresent(Int.self, forKey: .count)
            self.grantType = try c.decodeIfPresent(GrantType.self, forKey: .grantType)
            if action == .status, !(100...599).contains(status ?? 0) {
                throw DecodingError.dataCorruptedError(
                    forKey: .status, in: c, debugDescription: "a status fault needs a status between 100 and 599")
            }
        }

        /// Answer with an HTTP status (e.g. 500, 503, 429) and an error body.
        public static func status(_ code: Int) -> Fault { Fault(action: .status, status: code) }
        /// Delay the normal answer by `seconds`.
        public static func latency(_ seconds: Double) -> Fault { Fault(action: .none, latency: seconds) }
        /// Answer 200 with a body that is not valid JSON.
        public static let malformedBody = Fault(action: .malformedBody)
        /// Answer 200 with a body cut short, then close the connection.
        public static let truncatedBody = Fault(action: .truncatedBody)
        /// Close the connection without answering.
        public static let dropConnection = Fault(action: .dropConnection)
        /// Process the request, then close the connection without answering.
        public static let processThenDrop = Fault(action: .processThenDrop)

        /// Send the head and a few bytes of the body, then stall.
        public static let stalledBody = Fault(action: .stalledBody)
        /// Answer 200 with another user's profile (for `/userinfo`).
        public static let otherSubject = Fault(action: .otherSubject)
        /// Answer with a body of 2 MiB.
        public static let oversizedBody = Fault(action: .oversizedBody)
        /// Process the request, then stall without answering.
        public static let processThenStall = Fault(action: .processThenStall)

        /// The same fault, affecting only the next `count` matching requests.
        public func times(_ count: Int) -> Fault {
            var copy = self
            copy.count = count
            return copy
        }

        /// The same fault, delayed by `seconds` first.
        public func delayed(by seconds: Double) -> Fault {
            var copy = self
            copy.latency = seconds
            return copy
        }

        /// The same fault, restricted to `/oauth/token` requests of `grantType`.
        public func only(_ grantType: GrantType) -> Fault {
            var copy = self
            copy.grantType = grantType
            return copy
        }
    }
}
