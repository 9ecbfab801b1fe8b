public import Foundation

extension AuthEmulator {
    /// One Back-Channel Logout delivery (OIDC Back-Channel Logout 1.0 §2.5): a logout token posted to a client's
    /// back-channel logout URI, and what came back.
    ///
    /// Deliveries are made once, without retries: a receiver that answers with an error, refuses the connection
    /// or stalls past ``Configuration/backchannelLogoutTimeout`` is recorded as failed and the emulator moves on.
    /// ``Controls/backchannelDeliveries()`` lists them, oldest first.
    ///
    /// ```swift
    /// try await emulator.controls.setBackchannelLogoutURI(receiver, forClient: AuthEmulator.Client.confidentialID)
    /// try await emulator.controls.endSessions(forUser: AuthEmulator.User.aliceID)
    /// let delivery = try #require(try await emulator.controls.backchannelDeliveries().last)
    /// #expect(delivery.succeeded)
    /// ```
    public struct BackchannelDelivery: Sendable, Codable, Equatable, CustomStringConvertible {
        /// Why no HTTP answer came back.
        public enum TransportFailure: String, Sendable, Codable, Equatable {
            /// No answer within the timeout (a stalled receiver).
            case timedOut
            /// The connection could not be made: refused, unreachable, or the name did not resolve.
            case connectionFailed
            /// The receiver closed the connection before answering.
            case connectionClosed
            /// Any other transport error.
            case other
        }

        /// The client the token was addressed to (its `aud`).
        public var clientID: String
        /// The back-channel logout URI the token was posted to.
        public var uri: URL
        /// The logout token exactly as sent, for tests that replay or tamper with it. A credential that can sign
        /// the user out: ``description`` never shows it.
        public var logoutToken: String
        /// The HTTP status the receiver answered with, or `nil` when none came.
        public var status: Int?
        /// Why no answer came, or `nil` when one did.
        public var failure: TransportFailure?
        /// When the delivery started, on the emulator clock.
        public var sentAt: Date
        /// How long it took, in seconds of real time.
        public var duration: Double

        /// Creates a record.
        public init(
            clientID: String,
            uri: URL,
            logoutToken: String,
            status: Int?,
            failure: TransportFailure?,
            sentAt: Date,
            duration: Double
        ) {
            self.clientID = clientID
            self.uri = uri
            self.logoutToken = logoutToken
            self.status = status
            self.failure = failure
            self.sentAt = sentAt
            self.duration = duration
        }

        /// Whether the receiver acknowledged the logout: 200, or 204, which some frameworks send for an empty 200
        /// (Back-Channel Logout 1.0 §2.8).
        public var succeeded: Bool { status == 200 || status == 204 }

        /// The outcome without the logout token.
        public var description: String {
            let outcome = status.map { "HTTP \($0)" } ?? failure.map { "\($0)" } ?? "no outcome"
            return "BackchannelDelivery(\(clientID), \(uri.absoluteString), \(outcome), token <REDACTED>)"
        }
    }
}
