#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ProviderClient {
    /// Signs in with a username and password (the resource-owner password grant), or, with `realm`,
    /// Auth0's password-realm grant against that connection.
    ///
    /// - Throws: ``SessionKitError/Code/providerError`` with `invalid_grant` for wrong credentials.
    public func signIn(
        username: String,
        password: Secret,
        realm: String? = nil,
        scope: String? = nil,
        audience: String? = nil
    ) async throws(SessionKitError) -> Credentials {
        guard !username.isEmpty, !password.isEmpty else {
            throw SessionKitError(code: .invalidInput, message: "the username and the password must not be empty")
        }
        var parameters: [(String, String)] = [
            ("grant_type", realm == nil ? "password" : "http://auth0.com/oauth/grant-type/password-realm"),
            ("username", username),
            ("password", password.unsafeRawValue),
        ]
        if let realm { parameters.append(("realm", realm)) }
        let scopes = try await scopeParameters(scope: scope, audience: audience)
        parameters += scopes
        // An ID token is validated when the answer has one, but not required: OpenID Connect defines it for
        // the code flow only, and some providers (django-oauth-toolkit) send none for this grant.
        do {
            return try await tokenRequest(parameters, expecting: .init())
        } catch {
            throw await explainingScope(error, asked: scopes[0].1)
        }
    }

    /// Renews `credentials` with their refresh token, like Auth0.swift's `renew(withRefreshToken:scope:)`.
    ///
    /// A `scope` narrower than the granted one asks for a down-scoped access token. When the answer
    /// carries no new refresh token the old one is kept; when it carries an ID token, that token must
    /// name the same user.
    ///
    /// - Throws: ``SessionKitError/Code/signInRequired`` when there is no refresh token;
    ///   ``SessionKitError/Code/providerError`` with `invalid_grant` when the provider refused it.
    public func renew(
        _ credentials: Credentials,
        scope: String? = nil,
        parameters extra: [String: String] = [:]
    ) async throws(SessionKitError) -> Credentials {
        let received = try await sendRenewal(credentials, scope: scope, parameters: extra)
        return try await accept(received, expecting: renewalExpectations(for: credentials))
    }

    /// Sends the refresh grant for `credentials` and returns the answer, its ID token not yet validated.
    func sendRenewal(_ credentials: Credentials, scope: String?, parameters extra: [String: String] = [:])
        async throws(SessionKitError) -> ReceivedTokens
    {
        // Tokens bound to a key this client no longer has cannot be renewed: a definite answer, never a retry.
        if credentials.isDPoPBound && configuration.dpop == nil { throw Self.missingDPoPKey }
        guard let refreshToken = credentials.refreshToken, !refreshToken.isEmpty else {
            throw SessionKitError(
                code: .signInRequired,
                message: "these credentials have no refresh token, so they cannot be renewed; sign in again "
                    + "(ask for offline_access to get a refresh token)"
            )
        }
        var parameters: [(String, String)] = [
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken.unsafeRawValue),
        ]
        if let scope { parameters.append(("scope", scope)) }
        parameters += extra.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return try await sendTokenRequest(parameters)
    }

    /// What a renewal's answer must satisfy: an ID token, if any, names the same user; tokens the answer
    /// omits are kept from `credentials`.
    func renewalExpectations(for credentials: Credentials) -> TokenExpectations {
        TokenExpectations(subject: credentials.idTokenClaims?.subject, previous: credentials)
    }

    /// Trades a still-valid token for new credentials with an RFC 8693 token exchange: today's form of
    /// Auth0's old delegation call (`fetchNewIdTokenWithIdToken`).
    ///
    /// - Parameters:
    ///   - subjectToken: The token to trade, usually the current access token or ID token.
    ///   - subjectTokenType: Its type, such as ``TokenType/accessToken``.
    ///   - audience: The API the new token is for, if another than the configured one.
    public func exchange(
        subjectToken: Secret,
        subjectTokenType: TokenType,
        requestedTokenType: TokenType? = nil,
        audience: String? = nil,
        scope: String? = nil
    ) async throws(SessionKitError) -> Credentials {
        var parameters: [(String, String)] = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
            ("subject_token", subjectToken.unsafeRawValue),
            ("subject_token_type", subjectTokenType.rawValue),
        ]
        if let requestedTokenType { parameters.append(("requested_token_type", requestedTokenType.rawValue)) }
        if let scope { parameters.append(("scope", scope)) }
        if let audience = audience ?? configuration.audience { parameters.append(("audience", audience)) }
        return try await tokenRequest(parameters, expecting: .init())
    }

    /// Revokes `token` at the provider (RFC 7009). Revoking a refresh token ends its whole grant.
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` when the provider has no revocation
    ///   endpoint; a retryable error when it could not be reached.
    public func revoke(_ token: Secret, hint: TokenType? = .refreshToken) async throws(SessionKitError) {
        let url = try await metadata().endpoint(.revocation)
        var parameters = [("token", token.unsafeRawValue)]
        if let hint { parameters.append(("token_type_hint", hint.revocationHint)) }
        let response = try await postForm(parameters, to: url, endpoint: "revocation endpoint", proof: true)
        guard response.status == 200 else {
            throw providerFailure(response, endpoint: "revocation endpoint")
        }
    }

    /// The user's profile from the userinfo endpoint. A 401 means the access token is no longer valid.
    ///
    /// A DPoP-bound token (`tokenType` DPoP) goes as `Authorization: DPoP` with a proof bound to it.
    public func userInfo(accessToken: Secret, tokenType: String = "Bearer") async throws(SessionKitError)
        -> UserProfile
    {
        let url = try await metadata().endpoint(.userInfo)
        let bound = tokenType.equalsIgnoringASCIICase("DPoP")
        if bound && configuration.dpop == nil { throw Self.missingDPoPKey }
        let request = HTTPRequest(
            method: "GET",
            url: url,
            headers: [
                ("Authorization", "\(bound ? "DPoP" : "Bearer") \(accessToken.unsafeRawValue)"),
                ("Accept", "application/json"),
            ]
        )
        let sentAt = clock.now()
        let response =
            bound
            ? try await sendWithProof(request, accessToken: accessToken, endpoint: "userinfo endpoint")
            : try await send(request, endpoint: "userinfo endpoint")
        learnClockOffset(from: response, sentAt: sentAt, receivedAt: clock.now())
        if response.status == 401 {
            throw SessionKitError(
                code: .providerError,
                message:
                    "the userinfo endpoint refused the access token (expired or revoked); renew it or sign in again",
                oauthError: "invalid_token",
                httpStatus: 401
            )
        }
        guard response.status == 200 else { throw providerFailure(response, endpoint: "userinfo endpoint") }
        return try UserProfile(json: response.body)
    }
}
