// The getting-started guide of SessionKit's DocC catalogue (GettingStarted.md), one slice per step.

// snippet.manager
import Foundation
import SecureStore
import SessionKit

let provider = ProviderClient(
    configuration: try ProviderConfiguration(
        issuer: URL(string: "https://example.eu.auth0.com/")!,
        clientID: "YOUR_CLIENT_ID"
    ))
// On Linux, the store's key lives in the desktop keyring when one answers.
let selection = try StoreSelection.make(
    service: "com.example.app", folder: EncryptedFileStore.Configuration.defaultFolder()
)
if let warning = selection.warning { print(warning) }  // the keyring fell back to a key file
let store = selection.store
let session = SessionManager(provider: provider, store: store)
// snippet.end

// snippet.hide
func showLogin(message: String) {}
func log(_ message: String) {}
final class Label { var text: String? }
let label = Label()

func onStartUp() async throws {
    // snippet.show
    // snippet.start-up
    if try await session.hasSession() {
        let locallyValid = try await session.hasValidCredentials(minTTL: 60)  // the stored expiry, no request
        let profile = try await session.userInfo()  // asks the provider
        print("\(profile.name ?? profile.subject): valid for a minute at least: \(locallyValid)")
    }
    // snippet.hide
}

func beforeEachCall() async throws -> Credentials {
    // snippet.show
    // snippet.token
    let credentials = try await session.credentials(minTTL: 60)
    // snippet.hide
    return credentials
}

func whenRevoked() async throws {
    // snippet.show
    // snippet.revoked
    do {
        _ = try await session.credentials()
    } catch  where error.code == .signInRequired {
        showLogin(message: error.message)
    }
    // snippet.hide
}

func exchange(_ credentials: Credentials) async throws {
    // snippet.show
    // snippet.exchange
    let exchanged = try await provider.exchange(subjectToken: credentials.accessToken, subjectTokenType: .accessToken)
    // snippet.hide
    _ = exchanged
}

@MainActor func profile() async throws {
    // snippet.show
    // snippet.profile
    let profile = try await session.userInfo()  // cached for offline use
    label.text = profile.name

    let management = ManagementClient(session: session)  // needs the /api/v2/ audience and scopes
    _ = try await management.patchUserMetadata(id: profile.subject, ["country": "Canada"])  // the updated user
    let user = try await management.user(id: profile.subject, fields: ["user_metadata"])
    // snippet.hide
    _ = user
}

func onLogout() async throws {
    // snippet.show
    // snippet.logout
    let result = try await session.logout()
    if let error = result.revocationError { log("signed out locally; revocation failed: \(error)") }
    // snippet.hide
}
