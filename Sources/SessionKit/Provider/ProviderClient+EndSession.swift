#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ProviderClient {
    /// The URL that ends the user's sign-on session at the provider (OpenID Connect RP-Initiated Logout 1.0),
    /// for the browser to visit after the app's own session has ended; `nil` when the provider has no
    /// end-session endpoint (discovery lists none and no override is configured).
    ///
    /// Without it, "Sign in" right after "Sign out" brings the same user straight back: the provider still
    /// remembers them.
    ///
    /// ```swift
    /// if let url = try await provider.endSessionURL(
    ///     idTokenHint: credentials.idToken, postLogoutRedirectURI: URL(string: "https://app.example.com/")!) {
    ///     // send the browser there
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - idTokenHint: The session's ID token, so the provider knows whose session and which client; it is
    ///     sent in the URL, as the specification defines.
    ///   - postLogoutRedirectURI: Where the provider sends the browser back; it must be registered there.
    ///   - state: Echoed back to `postLogoutRedirectURI`.
    /// - Throws: A retryable ``SessionKitError`` when discovery could not be loaded;
    ///   ``SessionKitError/Code/invalidConfiguration`` when the endpoint is not `https` (or loopback `http`).
    public func endSessionURL(idTokenHint: Secret?, postLogoutRedirectURI: URL?, state: String? = nil)
        async throws(SessionKitError) -> URL?
    {
        let metadata = try await metadata()
        guard metadata.endSessionEndpoint != nil else { return nil }
        let endpoint = try metadata.endpoint(.endSession)
        var items = [URLQueryItem(name: "client_id", value: configuration.clientID)]
        if let idTokenHint { items.append(URLQueryItem(name: "id_token_hint", value: idTokenHint.unsafeRawValue)) }
        if let postLogoutRedirectURI {
            items.append(URLQueryItem(name: "post_logout_redirect_uri", value: postLogoutRedirectURI.absoluteString))
        }
        if let state { items.append(URLQueryItem(name: "state", value: state)) }
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw SessionKitError(code: .invalidConfiguration, message: "the end-session endpoint is not a valid URL")
        }
        components.queryItems = (components.queryItems ?? []) + items
        guard let url = components.url else {
            throw SessionKitError(code: .invalidConfiguration, message: "the end-session endpoint cannot carry a query")
        }
        return url
    }
}
