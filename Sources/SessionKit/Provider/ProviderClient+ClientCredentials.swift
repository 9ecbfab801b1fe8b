extension ProviderClient {
    /// Gets an access token for this client itself, not for a user (the `client_credentials` grant, RFC 6749
    /// section 4.4): what a back end uses to call an API in its own name, such as Auth0's Management API.
    ///
    /// The client must be confidential (a client secret) and allowed to use the grant for `audience` (in Auth0,
    /// a client grant on that API with the scopes it needs). The answer has no refresh token and no ID token:
    /// ask again when the token nears its expiry, or let SessionKitServer's `ClientCredentialsTokenSource` do it
    /// once for a whole fleet.
    ///
    /// - Parameters:
    ///   - audience: The API the token is for, such as `https://TENANT/api/v2/`; `nil`: the configured audience.
    ///   - scope: The scopes to ask for, space-separated; `nil`: every scope the client was granted.
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` for a public client (no secret);
    ///   ``SessionKitError/Code/providerError`` with `access_denied` or `unauthorized_client` when the provider
    ///   refuses the client this grant or audience; a retryable error when it could not be reached.
    public func clientCredentials(audience: String? = nil, scope: String? = nil) async throws(SessionKitError)
        -> Credentials
    {
        guard configuration.clientSecret != nil else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "client credentials need a confidential client: configure the client secret of "
                    + "\(configuration.clientID), or use a machine-to-machine application's client id and secret")
        }
        var parameters = [("grant_type", "client_credentials")]
        if let audience = audience ?? configuration.audience { parameters.append(("audience", audience)) }
        if let scope, !scope.isEmpty { parameters.append(("scope", scope)) }
        return try await tokenRequest(parameters, expecting: .init())
    }
}
