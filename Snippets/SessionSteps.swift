// The steps of Auth0's session-handling guides after the sign-in, with a SessionManager (README, quick start).

// snippet.hide
import Foundation
import SecureStore
import SessionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

let provider = ProviderClient(
    configuration: try ProviderConfiguration(
        issuer: URL(string: "https://example.eu.auth0.com/")!, clientID: "YOUR_CLIENT_ID"))
let session = SessionManager(provider: provider, store: MemoryStore(service: "com.example.app.session"))
func showLogin() {}
func showOffline() {}
func show(_ profile: UserProfile) {}
// snippet.show
// On start-up: is there a session? Shown at once from the cache, then checked with the provider.
if try await session.hasSession() {
    if let cached = try await session.cachedProfile() { show(cached) }
    show(try await session.userInfo())
}

// Before each API call: a token valid for a minute at least, renewed (rotation included) when needed.
func authorize(_ request: inout URLRequest) async {
    do {
        let credentials = try await session.credentials(minTTL: 60)
        request.setValue("Bearer \(credentials.accessToken.unsafeRawValue)", forHTTPHeaderField: "Authorization")
    } catch  where error.code == .signInRequired {
        showLogin()  // the refresh token was revoked: the session is already cleared
    } catch {
        showOffline()  // network, timeout, 5xx, a locked Keychain: retryable, and the session is kept
    }
}

// On logout: revoke at the provider and clear, even when revocation fails.
try await session.logout()
