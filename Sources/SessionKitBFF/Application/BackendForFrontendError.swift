/// What went wrong in setting up a back end for front ends, and what to do.
///
/// Request-time failures never throw this: they become HTTP answers (see ``BackendForFrontend``). It never
/// contains a token, a code, a cookie value or the client secret. Its shape is that of SessionKit's other errors
/// (`SessionKitError`, `SecureStoreError`): a ``Code`` to switch on, a message, the underlying error.
public struct BackendForFrontendError: Error, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Storage: String, Hashable, Sendable {
            case invalidConfiguration, shutdownFailed
        }

        let storage: Storage

        /// The configuration cannot work (a public URL that is not an origin, a bad prefix or upstream).
        public static let invalidConfiguration = Code(storage: .invalidConfiguration)
        /// The HTTP client for the upstream could not be shut down cleanly.
        public static let shutdownFailed = Code(storage: .shutdownFailed)

        /// The code's name, such as `invalidConfiguration`.
        public var description: String { storage.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong and what to do, in a sentence or two.
    public let message: String
    /// The error that caused this one, if any.
    public let underlyingError: (any Error)?

    /// Creates an error.
    public init(code: Code, message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    /// The code and the message.
    public var description: String { "\(code): \(message)" }
}
