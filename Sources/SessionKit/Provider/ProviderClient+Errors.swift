import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ProviderClient {
    /// The error for a non-success answer: the provider's OAuth error when it sent one, otherwise the
    /// status, with retryability from the status (429 and 5xx are retryable).
    func providerFailure(_ response: HTTPResponse, endpoint: String) -> SessionKitError {
        let object = (try? JSONValue(parsing: response.body))?.objectValue
        let oauthError = object?["error"]?.stringValue
        let description = object?["error_description"]?.stringValue ?? object?["message"]?.stringValue
        let status = response.status
        if status == 429 {
            return SessionKitError(
                code: .rateLimited,
                message: "the \(endpoint) is rate-limiting requests; the session is kept, try again later",
                oauthError: oauthError, oauthErrorDescription: description, httpStatus: status
            )
        }
        if status >= 500 {
            return SessionKitError(
                code: .serverError,
                message: "the \(endpoint) failed with HTTP \(status); the session is kept, try again later",
                oauthError: oauthError, oauthErrorDescription: description, httpStatus: status
            )
        }
        guard let oauthError else {
            return SessionKitError(
                code: .providerError,
                message:
                    "the \(endpoint) answered HTTP \(status) without an OAuth error; check the endpoint configuration",
                httpStatus: status
            )
        }
        if oauthError == "mfa_required" || oauthError == "insufficient_user_authentication" {
            let challenge = StepUpChallenge(
                acrValues: object?["acr_values"]?.stringValue.map { $0.split(separator: " ").map(String.init) } ?? [],
                maxAge: object?["max_age"]?.intValue,
                mfaToken: object?["mfa_token"]?.stringValue.map(Secret.init))
            return SessionKitError(
                code: .stepUpRequired,
                message: "the \(endpoint) asks for a stronger sign-in (\(oauthError)); the session is kept: sign the "
                    + "user in again with what the error's stepUp asks for",
                oauthError: oauthError, oauthErrorDescription: description, httpStatus: status, stepUp: challenge
            )
        }
        return SessionKitError(
            code: .providerError,
            message: "the \(endpoint) refused the request (\(oauthError))",
            oauthError: oauthError, oauthErrorDescription: description, httpStatus: status
        )
    }
}
