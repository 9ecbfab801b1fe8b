/// An error from starting, configuring or controlling the emulator.
///
/// Errors on the wire (OAuth and Management API errors) are HTTP responses, not this type. Its shape is that of
/// SessionKit's other errors (`SessionKitError`, `SecureStoreError`): a ``Code`` to switch on, a message, the
/// underlying error.
public struct AuthEmulatorError: Error, Sendable, CustomStringConvertible {
    /// A stable code to switch on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Storage: String, Hashable, Sendable {
            case invalidConfiguration, bindFailed, controlsDisabled, notFound, stateFile, signing
        }

        let storage: Storage

        /// The configuration is invalid or could not be read.
        public static let invalidConfiguration = Code(storage: .invalidConfiguration)
        /// The server could not listen on the requested address.
        public static let bindFailed = Code(storage: .bindFailed)
        /// A test control was used while `testControlsEnabled` is off.
        public static let controlsDisabled = Code(storage: .controlsDisabled)
        /// A test control named something (a user, a device code) that does not exist.
        public static let notFound = Code(storage: .notFound)
        /// The state file could not be read or written.
        public static let stateFile = Code(storage: .stateFile)
        /// A signing key could not be created or used.
        public static let signing = Code(storage: .signing)

        /// The code's name.
        public var description: String { storage.rawValue }
    }

    /// What failed.
    public let code: Code
    /// A message saying what failed and what to do; it never contains a secret.
    public let message: String
    /// The error that caused this one, if any.
    public let underlyingError: (any Error)?

    /// Creates an error.
    public init(code: Code, message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
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
