public import Foundation

extension AuthEmulator {
    /// One push delivery (RFC 8935) of a Security Event Token to a client's Shared Signals receiver, and what came
    /// back. ``Controls/securityEventDeliveries()`` lists them, oldest first.
    ///
    /// ```swift
    /// try await emulator.controls.setSecurityEventReceiver(receiver, forClient: AuthEmulator.Client.confidentialID)
    /// let deliveries = try await emulator.controls.sendSecurityEvent(
    ///     AuthEmulator.SecurityEventType.sessionRevoked, subject: AuthEmulator.User.aliceID,
    ///     toClient: AuthEmulator.Client.confidentialID)
    /// #expect(deliveries.allSatisfy(\.succeeded))
    /// ```
    public struct SecurityEventDelivery: Sendable, Codable, Equatable, CustomStringConvertible {
        /// The client the token was addressed to (its `aud`).
        public var clientID: String
        /// The receiver's push endpoint.
        public var uri: URL
        /// The token exactly as sent, for tests that replay or tamper with it. It can end a user's sessions:
        /// ``description`` never shows it.
        public var token: String
        /// The HTTP status the receiver answered with, or `nil` when none came.
        public var status: Int?
        /// Why no answer came, or `nil` when one did.
        public var failure: BackchannelDelivery.TransportFailure?
        /// When the delivery started, on the emulator clock.
        public var sentAt: Date

        /// Creates a record.
        public init(
            clientID: String, uri: URL, token: String, status: Int?, failure: BackchannelDelivery.TransportFailure?,
            sentAt: Date
        ) {
            self.clientID = clientID
            self.uri = uri
            self.token = token
            self.status = status
            self.failure = failure
            self.sentAt = sentAt
        }

        /// Whether the receiver accepted the token: 202 (RFC 8935 §2.2), or 200, which some receivers send.
        public var succeeded: Bool { status == 202 || status == 200 }

        /// The outcome without the token.
        public var description: String {
            let outcome = status.map { "HTTP \($0)" } ?? failure.map { "\($0)" } ?? "no outcome"
            return "SecurityEventDelivery(\(clientID), \(uri.absoluteString), \(outcome), token <REDACTED>)"
        }
    }

    /// The event types the emulator transmits (CAEP and RISC), as their URIs; any other URI is sent as given.
    public enum SecurityEventType {
        /// CAEP `session-revoked`.
        public static let sessionRevoked = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"
        /// CAEP `credential-change`.
        public static let credentialChange = "https://schemas.openid.net/secevent/caep/event-type/credential-change"
        /// RISC `account-disabled`.
        public static let accountDisabled = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
    }

    /// How the transmitter misbehaves on one ``Controls/sendSecurityEvent(_:subject:toClient:fault:)``.
    public enum SecurityEventFault: Sendable, Equatable {
        /// A correct, prompt delivery.
        case none
        /// The token is minted now and delivered this many seconds later (a slow transmitter or queue: the token
        /// arrives older than it was made).
        case slow(seconds: Double)
        /// The same token is delivered twice, one after the other (a transmitter that retries after a lost answer).
        case duplicate
        /// The token is signed with a key the emulator does not publish, under a published key id (a failing or
        /// forged transmitter): a receiver must refuse it.
        case unpublishedKey
    }
}
