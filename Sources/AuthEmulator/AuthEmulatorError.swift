/// An error from starting, configuring or controlling the emulator.
///
/// Errors on the wire (OAuth and Management API errors) are HTTP responses, not this type.
public struct AuthEmulatorError: Error, Sendable, CustomStringConvertible {
    /// A stable code to switch on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case invalidConfiguration, bindFailed, controlsDisabled, notFound, stateFile, signing
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// The configuration is invalid or could not be read.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The server could not listen on the requested address.
        public static let bindFailed = Code(.bindFailed)
        /// A test control was used while `testControlsEnabled` is off.
        public static let controlsDisabled = Code(.controlsDisabled)
        /// A test control named something (a user, a device code) that does not exist.
        public static let notFound = Code(.notFound)
        /// The state file could not be read or written.
        public static let stateFile = Code(.stateFile)
        /// A signing key could not be created or used.
        public static let signing = Code(.signing)

        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// What failed.
    public let code: Code
    /// A message saying what failed and what to do; it never contains a secret.
    public let message: String
    /// The error that caused this one, if any.
    public let underlyingError: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlying
    }

    /// The code and message, and the underlying error's type when present.
    public var description: String {
        var text = "AuthEmulatorError(\(code)): \(message)"
        if let underlyingError {
            text += " (underlying: \(type(of: underlyingError)))"
        }
        return text
    }
}
