/// An error from a ``SecureStore``: what failed, whether trying again can help, and what to do.
///
/// The ``description`` never contains a stored value. Compare ``code`` to tell the cases apart:
///
/// ```swift
/// do {
///     let token = try store.string(forKey: "refresh_token")
/// } catch where error.code == .unavailable {
///     // Keep the session; try again later.
/// }
/// ```
public struct SecureStoreError: Error, Sendable, CustomStringConvertible {
    /// A stable identifier for the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Storage: Hashable, Sendable {
            case unavailable
            case corrupted
            case invalidArgument
            case permissionDenied
            case keyMismatch
            case ioFailure
            case newerFormat
        }

        let storage: Storage

        /// The store cannot be read or written right now (locked keychain, keyring not answering,
        /// unreadable file, lock held too long). Retryable; it never means "no item".
        public static let unavailable = Code(storage: .unavailable)
        /// The stored data is damaged: tampered with, truncated, or not in the expected format.
        public static let corrupted = Code(storage: .corrupted)
        /// The caller passed something the store cannot accept (an empty key or service, a bad path).
        public static let invalidArgument = Code(storage: .invalidArgument)
        /// The operating system refused access (file modes, ownership, keychain access group).
        public static let permissionDenied = Code(storage: .permissionDenied)
        /// The data was written with a different encryption key than the one supplied.
        public static let keyMismatch = Code(storage: .keyMismatch)
        /// Reading or writing failed for another reason (disk full, I/O error).
        public static let ioFailure = Code(storage: .ioFailure)
        /// The data was written by a newer version of this library, in a format this one cannot read. It is left
        /// untouched: it is not damaged, and the newer version still reads it. Upgrade; not retryable as it is.
        public static let newerFormat = Code(storage: .newerFormat)

        /// A short, stable name for the code, such as `unavailable`.
        public var description: String {
            switch storage {
            case .unavailable: "unavailable"
            case .corrupted: "corrupted"
            case .invalidArgument: "invalidArgument"
            case .permissionDenied: "permissionDenied"
            case .keyMismatch: "keyMismatch"
            case .ioFailure: "ioFailure"
            case .newerFormat: "newerFormat"
            }
        }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong and what to do next. Never contains a stored value.
    public let message: String
    /// The error that caused this one, when there is one.
    public let underlyingError: (any Error)?

    /// Whether the same call may succeed later without any change by the user.
    public var isRetryable: Bool {
        code == .unavailable || code == .ioFailure
    }

    /// Creates an error.
    public init(code: Code, message: String, underlyingError: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlyingError = underlyingError
    }

    /// A one-line account of the failure: its code and message.
    public var description: String {
        "secure store \(code): \(message)"
    }
}
