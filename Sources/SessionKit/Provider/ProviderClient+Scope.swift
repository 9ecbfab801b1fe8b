extension ProviderClient {
    /// The scope a sign-in asks for: `scope` when given, else the configured one. The default scope leaves out
    /// `offline_access` when discovery lists scopes without it: such providers (django-oauth-toolkit with its
    /// defaults) issue refresh tokens anyway and refuse the scope they do not know.
    func requestedScope(_ scope: String?) async throws(SessionKitError) -> String {
        if let scope { return scope }
        guard configuration.usesDefaultScope, let supported = try await metadata().scopesSupported,
            !supported.contains("offline_access")
        else { return configuration.scope }
        return configuration.scope.split(separator: " ").filter { $0 != "offline_access" }.joined(separator: " ")
    }

    /// `error` with a message that names the refused scope and what discovery lists, when the provider refused
    /// the scope (`invalid_scope`); otherwise `error` unchanged.
    func explainingScope(_ error: SessionKitError, asked scope: String) async -> SessionKitError {
        guard error.oauthError == "invalid_scope" else { return error }
        let listed = (try? await metadata().scopesSupported).flatMap { $0 }
        let lists =
            listed.map { "its discovery document lists '\($0.joined(separator: " "))'" }
            ?? "its discovery document lists no scopes"
        return SessionKitError(
            code: error.code,
            message: "the provider refused the scope '\(scope)' (invalid_scope); \(lists): ask for scopes it supports "
                + "(ProviderConfiguration.scope, or sessionctl's --scope)",
            oauthError: error.oauthError, oauthErrorDescription: error.oauthErrorDescription,
            httpStatus: error.httpStatus)
    }
}
