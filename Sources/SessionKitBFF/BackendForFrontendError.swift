/// What went wrong in setting up a back end for front ends, and what to do.
///
/// Request-time failures never throw this: they become HTTP answers (see ``BackendForFrontend``). It never
/// contains a token, a code, a cookie value or the client secret.
public struct BackendForFrontendError: Error, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String

        /// The configuration cannot work (a public URL that is not an origin, a bad prefix or upstream).
        public static let invalidConfiguration = Code(name: "invalidConfiguration")
        /// The HTTP client for the upstream could not be shut down cleanly.
        public static let shutdownFailed = Code(name: "shutdownFailed")

        /// The code's name, such as `invalidConfiguration`.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong and what to do, in a sentence or two.
    public let message: String
    /// The error that caused this one, if any.
    public let underlyingError: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    /// The code and the message.
    public var description: String { "\(code): \(message)" }
}
