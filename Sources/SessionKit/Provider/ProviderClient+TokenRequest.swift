#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ProviderClient {
    /// What a token request's answer must satisfy beyond the protocol's rules.
    struct TokenExpectations: Sendable {
        /// Whether the answer must carry an ID token. Only the authorization-code flow with `openid`
        /// requires one (OpenID Connect Core 3.1.3.3); the password and device grants are plain OAuth
        /// grants, and providers such as django-oauth-toolkit answer them without an ID token.
        var requireIDToken = false
        var nonce: String?
        var maxAge: TimeInterval?
        /// The session's user, which a renewed ID token must name again.
        var subject: String?
        /// The credentials being renewed: their refresh and ID tokens are kept when the answer omits them.
        var previous: Credentials?
    }

    /// A token endpoint's answer as it arrived: parsed, but its ID token not yet validated.
    struct ReceivedTokens: Sendable {
        /// The answer, or why it was refused.
        var parsed: Result<TokenResponse, SessionKitError>
        /// The answer's refresh token, read even when the rest of the answer was refused: once one has
        /// arrived, the refresh token that was sent may be spent.
        var refreshToken: Secret?
        var receivedAt: Date
    }

    /// Posts `parameters` to the token endpoint with the client's authentication, then checks and
    /// validates the answer.
    func tokenRequest(_ parameters: [(String, String)], expecting expectations: TokenExpectations)
        async throws(SessionKitError) -> Credentials
    {
        try await accept(try await sendTokenRequest(parameters), expecting: expectations)
    }

    /// Posts `parameters` to the token endpoint and parses the answer, without validating its ID token.
    ///
    /// Once this returns, the provider has acted on the grant (a refresh token may have rotated): callers
    /// must not send the same grant again whatever ``accept(_:expecting:)`` then says.
    func sendTokenRequest(_ parameters: [(String, String)]) async throws(SessionKitError) -> ReceivedTokens {
        let url = try await metadata().endpoint(.token)
        let sentAt = clock.now()
        let response = try await postForm(parameters, to: url, endpoint: "token endpoint", proof: true)
        let receivedAt = clock.now()
        learnClockOffset(from: response, sentAt: sentAt, receivedAt: receivedAt)
        guard response.status == 200 else {
            throw providerFailure(response, endpoint: "token endpoint")
        }
        do {
            let tokens = try TokenResponse(
                body: response.body, endpoint: "token endpoint", dpop: configuration.dpop != nil)
            return ReceivedTokens(parsed: .success(tokens), refreshToken: tokens.refreshToken, receivedAt: receivedAt)
        } catch {
            // An answer refused for another field may still carry a new refresh token, which must not be lost.
            guard let refreshToken = TokenResponse.refreshToken(in: response.body) else { throw error }
            return ReceivedTokens(parsed: .failure(error), refreshToken: refreshToken, receivedAt: receivedAt)
        }
    }

    /// Validates the ID token of an answer, if any, and returns its credentials.
    func accept(_ received: ReceivedTokens, expecting expectations: TokenExpectations) async throws(SessionKitError)
        -> Credentials
    {
        let tokens = try received.parsed.get()
        if expectations.requireIDToken && tokens.idToken == nil {
            throw IDTokenValidator.failure(
                .malformedIDToken, "the authorization-code answer has no ID token although openid was requested")
        }
        if let idToken = tokens.idToken {
            let validator = try await idTokenValidator()
            _ = try await validator.validate(
                idToken,
                expecting: .init(
                    issuer: configuration.issuer.absoluteString,
                    clientID: configuration.clientID,
                    nonce: expectations.nonce,
                    maxAge: expectations.maxAge,
                    subject: expectations.subject,
                    now: providerNow,
                    leeway: configuration.leeway
                )
            )
        }
        return tokens.credentials(receivedAt: received.receivedAt, keeping: expectations.previous)
    }

    /// Loads the provider's signing keys now, unless they are loaded already, so that validating an ID token
    /// that arrives later needs no request (unless the provider rotated its keys meanwhile).
    ///
    /// A renewal calls this before it sends the refresh token: a key set that cannot be fetched then costs
    /// nothing, whereas after the answer it would leave a spent refresh token behind.
    func preloadSigningKeys() async throws(SessionKitError) {
        try await idTokenValidator().keys.preload()
    }

    /// Posts a form with the client's identity: `client_id` for a public client; for a confidential one, its
    /// secret by ``ClientAuthenticationMethod`` (HTTP Basic, or `client_secret` in the body). With `proof`, a DPoP
    /// proof goes along when a key is configured.
    func postForm(_ parameters: [(String, String)], to url: URL, endpoint: String, proof: Bool = false)
        async throws(SessionKitError) -> HTTPResponse
    {
        var form = parameters
        var headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
        if let secret = configuration.clientSecret {
            switch try await clientAuthenticationMethod() {
            case .clientSecretBasic, .automatic:
                // RFC 6749 2.3.1: both parts form-encoded, then joined by a colon and Base64-encoded.
                let pair =
                    FormEncoding.escape(configuration.clientID) + ":" + FormEncoding.escape(secret.unsafeRawValue)
                headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
            case .clientSecretPost:
                form.append(("client_id", configuration.clientID))
                form.append(("client_secret", secret.unsafeRawValue))
            }
        } else {
            form.append(("client_id", configuration.clientID))
        }
        let request = HTTPRequest(method: "POST", url: url, headers: headers, body: FormEncoding.encode(form))
        if proof { return try await sendWithProof(request, endpoint: endpoint, loggedBody: Redaction.form(form)) }
        return try await send(request, endpoint: endpoint, loggedBody: Redaction.form(form))
    }

    /// The configured client authentication method, or the one discovery's
    /// `token_endpoint_auth_methods_supported` calls for.
    func clientAuthenticationMethod() async throws(SessionKitError) -> ClientAuthenticationMethod {
        let configured = configuration.clientAuthentication
        if configured != .automatic { return configured }
        return try configured.resolved(supported: try await metadata().tokenEndpointAuthMethods)
    }

    /// The scope and audience parameters for a sign-in request.
    func scopeParameters(scope: String?, audience: String?) async throws(SessionKitError) -> [(String, String)] {
        var parameters = [("scope", try await requestedScope(scope))]
        if let audience = audience ?? configuration.audience { parameters.append(("audience", audience)) }
        return parameters
    }
}
