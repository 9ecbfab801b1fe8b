import SessionKit

extension LoopbackRedirectListener {
    /// How the listener bounds its work, and who hears about ignored callbacks.
    public struct Configuration: Sendable {
        /// How long the real redirect's page waits for the outcome before it tells the user to look at the
        /// application. 30 s by default.
        public var responseTimeout: Duration
        /// How long a connection may stay without sending a complete request before it is closed (a held
        /// page is never closed this way). 10 s by default.
        public var idleTimeout: Duration
        /// The most bytes a connection may send (request line, headers, any body); more is answered 431.
        /// 16 KiB by default.
        public var maxRequestBytes: Int
        /// Called once for each callback that was answered 400 and ignored; the sign-in goes on.
        public var onIgnoredRequest: (@Sendable (IgnoredRequest) -> Void)?

        /// Creates a configuration; every argument has the default described on its property.
        public init(
            responseTimeout: Duration = .seconds(30),
            idleTimeout: Duration = .seconds(10),
            maxRequestBytes: Int = 16_384,
            onIgnoredRequest: (@Sendable (IgnoredRequest) -> Void)? = nil
        ) {
            self.responseTimeout = responseTimeout
            self.idleTimeout = idleTimeout
            self.maxRequestBytes = maxRequestBytes
            self.onIgnoredRequest = onIgnoredRequest
        }
    }

    /// A request to the callback path that did not end the sign-in. It carries no part of the request (a
    /// `state` or code could be a secret).
    public struct IgnoredRequest: Sendable, CustomStringConvertible {
        /// Why it was ignored.
        public enum Reason: String, Sendable {
            /// It has no `state`, or more than one.
            case missingState
            /// Its `state` is not the sign-in's.
            case wrongState
            /// It carries the sign-in's `state`, but the sign-in's redirect has already arrived (a reload).
            case alreadyCompleted
            /// It carries the sign-in's `state`, but the wait has ended (timed out or cancelled).
            case notWaiting
        }

        /// Why it was ignored.
        public let reason: Reason

        /// One sentence for the user.
        public var description: String {
            switch reason {
            case .missingState:
                "ignored a request to the redirect address without a state: it does not belong to this sign-in"
            case .wrongState:
                "ignored a request to the redirect address whose state does not match: it does not belong to "
                    + "this sign-in"
            case .alreadyCompleted: "ignored a repeated request to the redirect address"
            case .notWaiting: "ignored a request to the redirect address after the sign-in stopped waiting"
            }
        }
    }
}
