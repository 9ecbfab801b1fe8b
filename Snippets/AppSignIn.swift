// An iOS app signs in with ASWebAuthenticationSession and keeps the session in the Keychain (README, quick start).
// It compiles on Apple platforms only, where AuthenticationServices and the Keychain are.

// snippet.hide
#if canImport(AuthenticationServices)
    // snippet.show
    import AuthenticationServices
    import SecureStore
    import SessionKit

    let provider = ProviderClient(
        configuration: try ProviderConfiguration(
            issuer: URL(string: "https://example.eu.auth0.com/")!, clientID: "YOUR_CLIENT_ID"))
    let session = SessionManager(provider: provider, store: KeychainStore(service: "com.example.app.session"))

    /// The guides' "On login": the browser sheet, the code exchange (state, PKCE, the ID token checked), one write.
    @MainActor
    func signIn(from window: any ASWebAuthenticationPresentationContextProviding) async throws {
        let request = try await provider.authorizationRequest(redirectURI: URL(string: "com.example.app://callback")!)
        let callback = try await withCheckedThrowingContinuation { continuation in
            let web = ASWebAuthenticationSession(url: request.url, callback: .customScheme("com.example.app")) {
                url, error in
                if let url { continuation.resume(returning: url) } else { continuation.resume(throwing: error!) }
            }
            web.presentationContextProvider = window
            web.start()
        }
        try await session.store(try await provider.exchange(callback: callback, for: request))
    }
// snippet.hide
#endif
