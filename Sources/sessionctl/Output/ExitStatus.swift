import ArgumentParser
import SessionKit

/// The documented exit codes, and the mapping from library errors to them.
enum ExitStatus {
    /// Success; for `status`, signed in (valid or renewable).
    static let success = ExitCode(0)
    /// No usable session: sign in.
    static let signInRequired = ExitCode(1)
    /// The provider failed or could not be reached; the session is kept.
    static let providerFailure = ExitCode(2)
    /// The session store is unavailable or damaged.
    static let storeFailure = ExitCode(3)
    /// The configuration is wrong.
    static let badConfiguration = ExitCode(4)
    /// The provider asks for a stronger sign-in (step-up); the session is kept.
    static let stepUpRequired = ExitCode(5)

    /// The exit code for `error`.
    static func code(for error: SessionKitError) -> ExitCode {
        switch error.code {
        case .signInRequired: signInRequired
        case .storeUnavailable, .storeCorrupted, .writtenByNewerVersion: storeFailure
        case .invalidConfiguration: badConfiguration
        // A refused scope is the configuration's to fix (`--scope`), not the provider's to recover from.
        case .providerError where error.oauthError == "invalid_scope": badConfiguration
        case .invalidInput: ExitCode.validationFailure
        case .stepUpRequired: stepUpRequired
        // An untrusted certificate will not change by itself: the user names the authority (`--ca-file`).
        case .networkFailure where error.underlyingError is CertificateTrustFailure: badConfiguration
        default: providerFailure
        }
    }
}
