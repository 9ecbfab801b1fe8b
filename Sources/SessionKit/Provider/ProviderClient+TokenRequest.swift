import Foundation

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

    /// Posts `parameters` to the token endpoint with the client's authentication, then checks and
    /// validates the answer.
    func tokenRequest(_ parameters: [(String, String)], expecting expectations: TokenExpectations)
        async throws(SessionKitError) -> Credentials
    {
        let url = try await metadata().endpoint(\.tokenEndpoint, named: "token", override: "token")
        let response = try await postForm(parameters, to: url, endpoint: "token endpoint")
        guard response.status == 200 else {
            throw providerFailure(response, endpoint: "token endpoint")
        }
        let receivedAt = clock.now()
        let tokens = try TokenResponse(body: response.body, endpoint: "token endpoint")
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
        return tokens.credentials(receivedAt: receivedAt, keeping: expectations.previous)
    }

    /// Posts a form with `client_id` and, for confidential clients, `client_secret`.
    func postForm(_ parameters: [(String, String)], to url: URL, endpoint: String) async throws(SessionKitError)
        -> HTTPResponse
    {
        var form = parameters
        form.append(("client_id", configuration.clientID))
        if let secret = configuration.clientSecret {
            form.append(("client_secret", secret.unsafeRawValue))
        }
        let request = HTTPRequest(
            method: "POST",
            url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: FormEncoding.encode(form)
        )
        return try await send(request, endpoint: endpoint, loggedBody: Redaction.form(form))
    }

    /// The scope and audience parameters for a sign-in request.
    func scopeParameters(scope: String?, audience: String?) -> [(String, String)] {
        var parameters = [("scope", scope ?? configuration.scope)]
        if let audience = audience ?? configuration.audience { parameters.append(("audience", audience)) }
        return parameters
    }
}
