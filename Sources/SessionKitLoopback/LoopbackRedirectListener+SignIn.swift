public import SessionKit

extension LoopbackRedirectListener {
    /// The whole browser sign-in after the browser was opened: waits for the redirect of `request`,
    /// exchanges its code (validating the ID token), runs `beforeAnswering` (store the session there), and
    /// only then answers the browser with "Signed in as …" or "Sign-in failed: …". Stops the listener.
    ///
    /// - Throws: ``SessionKitError/Code/timeout`` when no redirect arrives in time;
    ///   ``SessionKitError/Code/providerError`` with ``SessionKitError/oauthError`` set (such as
    ///   `access_denied`) when the provider sent an error; any error of the code exchange or of
    ///   `beforeAnswering`.
    public func signIn(
        _ request: AuthorizationRequest,
        with provider: ProviderClient,
        timeout: Duration,
        beforeAnswering: @Sendable (Credentials) async throws -> Void = { _ in }
    ) async throws(SessionKitError) -> Credentials {
        let redirect: LoopbackRedirect
        do {
            redirect = try await waitForRedirect(timeout: timeout)
        } catch {
            await stop()
            throw error
        }
        do {
            let credentials = try await provider.exchange(callback: redirect.url, for: request)
            try await beforeAnswering(credentials)
            await redirect.complete(signedInAs: credentials.displayName)
            await stop()
            return credentials
        } catch {
            let failure = ProviderClient.wrap(error)
            await redirect.complete(failure: failure)
            await stop()
            throw failure
        }
    }
}
