extension SessionKitError {
    /// A stable identifier for the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Storage: String, Hashable, Sendable {
            case signInRequired
            case providerError
            case networkFailure
            case timeout
            case rateLimited
            case serverError
            case invalidResponse
            case validationFailed
            case storeUnavailable
            case storeCorrupted
            case invalidConfiguration
            case invalidInput
            case cancelled
            case stepUpRequired
            case writtenByNewerVersion
        }

        let storage: Storage

        /// There is no usable session: never signed in, signed out, or the provider ended the session
        /// (`invalid_grant`, revoked). The user must sign in again. Not retryable.
        public static let signInRequired = Code(storage: .signInRequired)
        /// The provider refused the request with an OAuth error other than one that ends the session
        /// (for example `invalid_scope`, `unauthorized_client`). See ``SessionKitError/oauthError``.
        public static let providerError = Code(storage: .providerError)
        /// The provider could not be reached (no network, connection refused or reset). Retryable.
        public static let networkFailure = Code(storage: .networkFailure)
        /// The provider did not answer in time. Retryable.
        public static let timeout = Code(storage: .timeout)
        /// The provider answered 429 Too Many Requests. Retryable, later.
        public static let rateLimited = Code(storage: .rateLimited)
        /// The provider answered with a 5xx status. Retryable.
        public static let serverError = Code(storage: .serverError)
        /// The provider's answer was not what the protocol requires (malformed JSON, a missing member,
        /// a truncated body). Retryable: a well-behaved provider answers properly next time.
        public static let invalidResponse = Code(storage: .invalidResponse)
        /// A token failed validation; ``SessionKitError/failedCheck`` names the check. Nothing was stored.
        public static let validationFailed = Code(storage: .validationFailed)
        /// The secure store cannot be read or written right now (locked keychain or keyring, file lock
        /// held). The session is kept; retryable. It never means "signed out".
        public static let storeUnavailable = Code(storage: .storeUnavailable)
        /// The stored session is damaged (tampered, truncated, or written with another key).
        public static let storeCorrupted = Code(storage: .storeCorrupted)
        /// The configuration is wrong (a malformed issuer URL, a missing endpoint, plain HTTP to a
        /// remote host). Fix the configuration; not retryable.
        public static let invalidConfiguration = Code(storage: .invalidConfiguration)
        /// An argument is not acceptable (an empty username, a malformed metadata object).
        public static let invalidInput = Code(storage: .invalidInput)
        /// The task was cancelled.
        public static let cancelled = Code(storage: .cancelled)
        /// The provider or a resource server asks for a stronger or fresher authentication (step-up):
        /// `mfa_required` on a refresh, or RFC 9470's `insufficient_user_authentication`. The session is kept;
        /// sign the user in again with what ``SessionKitError/stepUp`` asks for. Not retryable as it is.
        public static let stepUpRequired = Code(storage: .stepUpRequired)
        /// The stored session (or the store itself) was written by a newer SessionKit, in a format this version cannot
        /// read: after a downgrade, or with two versions sharing one store. The data is left untouched, never
        /// discarded as damage, and the newer version still reads it; upgrade. Not retryable as it is, and it never
        /// means "signed out".
        public static let writtenByNewerVersion = Code(storage: .writtenByNewerVersion)

        /// Whether failures of this kind may succeed if tried again with nothing changed.
        public var isRetryable: Bool {
            switch storage {
            case .networkFailure, .timeout, .rateLimited, .serverError, .invalidResponse, .storeUnavailable: true
            default: false
            }
        }

        /// A short, stable name such as `signInRequired`.
        public var description: String { storage.rawValue }
    }
}
