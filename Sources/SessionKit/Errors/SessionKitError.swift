/// The one error SessionKit's client, session manager and management client throw: what happened,
/// whether trying again can help, and what to do next.
///
/// It never contains a token, code, secret or password, and its text never a terminal control character: what a
/// provider said (``oauthError``, ``oauthErrorDescription``, and any provider text a ``message`` quotes) is kept with
/// escape sequences, carriage returns, other C0 and C1 controls and bidi overrides taken out, so it can be shown as
/// it is. Switch on ``code``; read ``isRetryable`` to
/// decide between "try again later, the session is kept" and "the user must sign in".
///
/// ```swift
/// do {
///     let credentials = try await session.credentials(minTTL: 60)
/// } catch let error as SessionKitError where error.code == .signInRequired {
///     showLogin(reason: error.message)
/// } catch let error as SessionKitError where error.isRetryable {
///     showOfflineBanner()          // the session is still there
/// }
/// ```
public struct SessionKitError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public let code: Code
    /// What went wrong and what to do next, in one sentence or two.
    public let message: String
    /// The provider's OAuth `error` code (`invalid_grant`, ...), when the provider answered with one.
    public let oauthError: String?
    /// The provider's `error_description`, when it sent one. Providers do not put secrets there.
    public let oauthErrorDescription: String?
    /// The HTTP status of the provider's answer, when there was one.
    public let httpStatus: Int?
    /// The check that failed, for ``Code/validationFailed``.
    public let failedCheck: ValidationCheck?
    /// The error that caused this one, when there is one (a transport or store error).
    public let underlyingError: (any Error)?
    /// What the provider asks for, for ``Code/stepUpRequired``.
    public let stepUp: StepUpChallenge?
    /// The endpoint that neither the provider's discovery document nor ``EndpointOverrides`` supplies, for the
    /// ``Code/invalidConfiguration`` that says so: a program with settings of its own names the one that supplies it.
    public let missingEndpoint: ProviderEndpoint?

    /// Creates an error; terminal control characters in `message`, `oauthError` and `oauthErrorDescription` are
    /// taken out (a line break becomes a space).
    public init(
        code: Code,
        message: String,
        oauthError: String? = nil,
        oauthErrorDescription: String? = nil,
        httpStatus: Int? = nil,
        failedCheck: ValidationCheck? = nil,
        underlyingError: (any Error)? = nil,
        stepUp: StepUpChallenge? = nil,
        missingEndpoint: ProviderEndpoint? = nil
    ) {
        self.code = code
        self.message = message.strippingTerminalControls()
        self.oauthError = oauthError?.strippingTerminalControls()
        self.oauthErrorDescription = oauthErrorDescription?.strippingTerminalControls()
        self.httpStatus = httpStatus
        self.failedCheck = failedCheck
        self.underlyingError = underlyingError
        self.stepUp = stepUp
        self.missingEndpoint = missingEndpoint
    }

    /// Whether the same call may succeed later with nothing changed: network failures, timeouts,
    /// rate limits, server errors and an unavailable store. The session is kept in all of these.
    public var isRetryable: Bool { code.isRetryable }

    /// One line: the code, the message and the provider's error, if any.
    public var description: String {
        var text = "\(code): \(message)"
        if let oauthError {
            text += " [provider: \(oauthError)"
            if let oauthErrorDescription { text += ": \(oauthErrorDescription)" }
            if let httpStatus { text += ", HTTP \(httpStatus)" }
            text += "]"
        } else if let httpStatus {
            text += " [HTTP \(httpStatus)]"
        }
        return text
    }
}
