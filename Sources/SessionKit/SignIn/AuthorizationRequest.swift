import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One authorization-code request with PKCE: the URL to open in the browser, and what the callback and
/// the code exchange must match. Keep it until the callback arrives; use it once.
public struct AuthorizationRequest: Sendable, CustomStringConvertible {
    /// The URL to open in the user's browser.
    public let url: URL
    /// The redirect URI the provider will send the user back to.
    public let redirectURI: URL
    /// The `state` value the callback must carry back.
    public let state: String
    /// The `nonce` the ID token must carry.
    public let nonce: String
    /// The PKCE code verifier, sent only with the code exchange.
    public let codeVerifier: Secret
    /// The requested scope.
    public let scope: String
    /// The `max_age` sent, if any.
    public let maxAge: TimeInterval?

    /// Recreates a request that was built by ``ProviderClient/authorizationRequest(redirectURI:scope:audience:prompt:maxAge:additionalParameters:deferringPush:)``
    /// and kept elsewhere until its callback arrived: a server that starts the sign-in on one instance and
    /// receives the callback on another keeps these values in its shared store, never in the browser.
    public init(
        url: URL, redirectURI: URL, state: String, nonce: String, codeVerifier: Secret, scope: String,
        maxAge: TimeInterval? = nil
    ) {
        self.url = url
        self.redirectURI = redirectURI
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.scope = scope
        self.maxAge = maxAge
    }

    /// The `request_uri` the browser carries when the parameters were pushed to the provider first (RFC 9126), else
    /// `nil`.
    public var requestURI: String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "request_uri" }?.value
    }

    /// The authorization endpoint (without the query: `state`, `nonce` and the challenge stay out) and the
    /// redirect URI; never the verifier.
    public var description: String {
        var endpoint = URLComponents(url: url, resolvingAgainstBaseURL: false)
        endpoint?.query = nil
        let shown = endpoint?.string ?? "<authorization endpoint>"
        return "AuthorizationRequest(endpoint: \(shown), redirect_uri: \(redirectURI.absoluteString))"
    }

    /// Reads the authorization code from the callback URL after checking its `state`.
    ///
    /// - Throws: ``SessionKitError/Code/validationFailed`` (``ValidationCheck/state``) when `state`
    ///   differs, and ``SessionKitError/Code/providerError`` when the callback carries an OAuth
    ///   error such as `access_denied` or `login_required`.
    public func code(fromCallback callback: URL) throws(SessionKitError) -> Secret {
        let items = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard let returned = value("state"), ConstantTime.equals(returned, state) else {
            throw SessionKitError(
                code: .validationFailed,
                message: "the callback's state does not match the request's; it may be forged, so it was refused",
                failedCheck: .state
            )
        }
        if let error = value("error"), error == "invalid_request_uri" {
            throw SessionKitError(
                code: .providerError,
                message: "the provider refused the pushed sign-in's request_uri (invalid_request_uri): it expired "
                    + "before the browser arrived, or was used already; start the sign-in again and open its link "
                    + "within a minute. Nothing was stored, and a stored session is kept",
                oauthError: error,
                oauthErrorDescription: value("error_description")
            )
        }
        if let error = value("error") {
            throw SessionKitError(
                code: .providerError,
                message: "the provider did not authorize the sign-in (\(error))",
                oauthError: error,
                oauthErrorDescription: value("error_description")
            )
        }
        guard let code = value("code"), !code.isEmpty else {
            throw SessionKitError(code: .invalidResponse, message: "the callback carries neither a code nor an error")
        }
        return Secret(code)
    }
}
