import HTTPTypes
import Hummingbird
import SessionKit

/// How a failure to get a session's credentials is answered.
///
/// - The session is gone (signed out elsewhere, `invalid_grant`, never existed): 401 with `sign_in`, and the
///   cookie cleared. SessionKit has already deleted a session the provider ended.
/// - The provider asks for a stronger sign-in (`mfa_required`, step-up): 401 with `step_up_required` and the
///   sign-in path, the session and its cookie kept.
/// - The session store (PostgreSQL) is unavailable: 503, the session kept.
/// - The session (its record or its cookie) was written by a newer version: 503, the session and its cookie kept.
/// - The provider is unreachable, slow, failing or answered badly: 502, the session kept.
/// - Anything else (a damaged session, a wrong configuration): 500, the session kept; the operator must look.
struct SessionFailure {
    let error: SessionKitError
    let signInPath: String
    let clearCookie: String

    var response: Response {
        switch error.code {
        case .signInRequired, .invalidInput:
            return Answers.error(
                .unauthorized, "sign_in_required",
                "There is no session, or it has ended; send the user to sign in again.", signIn: signInPath,
                setCookies: [clearCookie])
        case .stepUpRequired:
            return Answers.error(
                .unauthorized, "step_up_required",
                "The identity provider asks for a stronger sign-in (such as a second factor); the session is kept. "
                    + "Send the user to sign in again.", signIn: signInPath)
        case .storeUnavailable:
            return Answers.error(
                .serviceUnavailable, "session_store_unavailable",
                "The session store cannot be reached right now; the session is kept. Try again shortly.",
                retryAfter: 1)
        case .rateLimited:
            return Answers.error(
                .serviceUnavailable, "provider_rate_limited",
                "The identity provider asks to slow down; the session is kept. Try again shortly.", retryAfter: 5)
        case .networkFailure, .timeout, .serverError, .invalidResponse, .providerError, .validationFailed:
            return Answers.error(
                .badGateway, "provider_unavailable",
                "The identity provider could not renew the session right now; the session is kept. Try again later.")
        case .writtenByNewerVersion:
            return Answers.error(
                .serviceUnavailable, "session_written_by_newer_version",
                "The session was written by a newer version of this back end (an upgrade under way?); the session "
                    + "and its cookie are kept. Try again shortly.", retryAfter: 5)
        case .cancelled:
            return Answers.error(.serviceUnavailable, "cancelled", "The request was cancelled; try again.")
        default:
            return Answers.error(
                .internalServerError, "session_unreadable",
                "The session could not be read (\(error.code)); the session is kept. The operator should check "
                    + "the server's configuration and logs.")
        }
    }
}
