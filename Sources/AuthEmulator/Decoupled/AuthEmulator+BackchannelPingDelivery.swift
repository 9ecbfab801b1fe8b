public import Foundation

extension AuthEmulator {
    /// One ping (OpenID CIBA Core 1.0 section 10.2): `{"auth_req_id": ...}` posted as JSON to a ping-mode client's
    /// notification endpoint with its `client_notification_token` as a bearer token, once the user decided, and what
    /// came back. ``Controls/backchannelPingDeliveries()`` lists them, oldest first.
    ///
    /// The record holds neither the `auth_req_id` nor the bearer token: both are credentials of the request.
    /// Deliveries are made once, without retries, within ``Configuration/backchannelLogoutTimeout``.
    ///
    /// ```swift
    /// try await emulator.controls.setBackchannelNotificationEndpoint(receiver, forClient: clientID)
    /// try await emulator.controls.approveBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
    /// let ping = try #require(try await emulator.controls.backchannelPingDeliveries().last)
    /// #expect(ping.succeeded)
    /// ```
    public struct BackchannelPingDelivery: Sendable, Codable, Equatable, CustomStringConvertible {
        /// The client the ping was for.
        public var clientID: String
        /// The notification endpoint it was posted to.
        public var uri: URL
        /// How the emulator misbehaved on purpose (``BackchannelPingFault/none`` for a correct ping).
        public var fault: BackchannelPingFault
        /// The HTTP status the client answered with, or `nil` when none came (or nothing was sent: a dropped ping).
        public var status: Int?
        /// Why no answer came, or `nil` when one did or nothing was sent.
        public var failure: BackchannelDelivery.TransportFailure?
        /// When the delivery started (or was dropped), on the emulator clock.
        public var sentAt: Date

        /// Creates a record.
        public init(
            clientID: String, uri: URL, fault: BackchannelPingFault, status: Int?,
            failure: BackchannelDelivery.TransportFailure?, sentAt: Date
        ) {
            self.clientID = clientID
            self.uri = uri
            self.fault = fault
            self.status = status
            self.failure = failure
            self.sentAt = sentAt
        }

        /// Whether the client acknowledged the ping: 204, or 200 (CIBA Core section 10.2).
        public var succeeded: Bool { status == 204 || status == 200 }

        /// The outcome; the record holds no secret to leave out.
        public var description: String {
            let outcome =
                status.map { "HTTP \($0)" } ?? failure.map { "\($0)" } ?? (fault == .dropped ? "dropped" : "no outcome")
            let faultNote = fault == .none ? "" : ", fault \(fault.rawValue)"
            return "BackchannelPingDelivery(\(clientID), \(uri.absoluteString), \(outcome)\(faultNote))"
        }
    }

    /// How the emulator misbehaves on the ping of one decision
    /// (``Controls/approveBackchannelAuthentication(forUser:bindingMessage:pingFault:)``), so that tests can prove
    /// a client's fallback poll and its checks of the bearer token.
    public enum BackchannelPingFault: String, Sendable, Codable, Equatable {
        /// A correct ping.
        case none
        /// No ping is sent (a lost notification): only the client's fallback poll learns of the decision.
        case dropped
        /// The ping carries another bearer token than the request's `client_notification_token` (a forged
        /// notification): the client must refuse it with 401 and wake nothing.
        case wrongToken = "wrong_token"
        /// The same ping is posted twice, one after the other (a provider that retries after a lost answer).
        case duplicate
    }
}
