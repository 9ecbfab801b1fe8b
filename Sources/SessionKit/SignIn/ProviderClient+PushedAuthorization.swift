import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ProviderClient {
    /// The pushed authorization request endpoint when this sign-in is pushed (RFC 9126), else `nil`: pushed when
    /// the configuration says ``PushedAuthorization/always`` or the provider requires it.
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` when a push is called for and no endpoint is known.
    func pushedAuthorizationEndpoint(in metadata: ProviderMetadata) throws(SessionKitError) -> URL? {
        let required = metadata.requirePushedAuthorizationRequests == true
        guard required || configuration.pushedAuthorization.storage == .always else { return nil }
        return try metadata.endpoint(.pushedAuthorization)
    }

    /// Posts the authorization parameters to `url` with the client's authentication (as at the token endpoint) and
    /// a DPoP proof when a key is configured, and returns the `request_uri` the provider answered.
    func pushAuthorizationRequest(_ parameters: [(String, String)], to url: URL) async throws(SessionKitError)
        -> String
    {
        let endpoint = "pushed authorization request endpoint"
        let response = try await postForm(parameters, to: url, endpoint: endpoint, proof: true)
        guard response.status == 201 || response.status == 200 else {
            throw Self.pushRefused(providerFailure(response, endpoint: endpoint))
        }
        let object = (try? JSONValue(parsing: response.body))?.objectValue
        guard let requestURI = object?["request_uri"]?.stringValue, !requestURI.isEmpty,
            requestURI.utf8.count <= 2048
        else {
            throw SessionKitError(
                code: .invalidResponse,
                message: "the \(endpoint) answered HTTP \(response.status) without a usable request_uri; "
                    + "try again, and check the endpoint configuration if it persists",
                httpStatus: response.status)
        }
        return requestURI
    }

    /// A refusal by the pushed authorization request endpoint, said in its own words: a provider refuses a push for
    /// the client's authentication or for the sign-in's parameters, and what to check differs.
    static func pushRefused(_ error: SessionKitError) -> SessionKitError {
        guard error.code == .providerError, let oauthError = error.oauthError else { return error }
        let advice =
            switch oauthError {
            case "invalid_client":
                "the client's authentication was not accepted: check the client id, its secret and the "
                    + "authentication method registered at the provider"
            case "unauthorized_client":
                "the client may not use this sign-in: allow the authorization-code grant (and pushed "
                    + "authorization requests) for it at the provider"
            case "invalid_scope":
                "the scope was refused: ask for scopes the provider supports"
            case "invalid_dpop_proof":
                "the DPoP proof was refused: check the clock of this machine"
            default:
                "check the sign-in's parameters (redirect URI, scope, audience) against the client's registration"
            }
        return SessionKitError(
            code: error.code,
            message: "the provider refused the pushed authorization request (\(oauthError)); \(advice). The browser "
                + "was not sent, nothing was stored, and a stored session is kept",
            oauthError: error.oauthError, oauthErrorDescription: error.oauthErrorDescription,
            httpStatus: error.httpStatus, underlyingError: error)
    }
}
