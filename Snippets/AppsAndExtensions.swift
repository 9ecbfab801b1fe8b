// An iOS app and its extensions share one session in the Keychain (AppsAndExtensions.md, one slice per block).
// The app's slices compile on Apple platforms only, where SwiftUI, AuthenticationServices and the Keychain are.

// snippet.hide
import Foundation
import SecureStore
import SessionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(SwiftUI)
    // snippet.show
    // snippet.account
    import SecureStore
    import SessionKit
    import SwiftUI

    @MainActor @Observable
    final class Account {
        static let group = FileManager.default.containerURL(
            forSecurityApplicationGroupIdentifier: "group.com.example.app")!

        let provider: ProviderClient
        let session: SessionManager
        var profile: UserProfile?
        var needsSignIn = false

        init() {
            provider = ProviderClient(
                configuration: try! ProviderConfiguration(
                    issuer: URL(string: "https://example.eu.auth0.com/")!,
                    clientID: "YOUR_CLIENT_ID"))  // scope: "openid profile email offline_access"
            let store = KeychainStore(
                service: "com.example.app.session",
                accessGroup: "TEAMID.com.example.shared",  // in the keychain-access-groups entitlement
                crossProcessLock: Self.group.appendingPathComponent("session.lock"))
            session = SessionManager(provider: provider, store: store)
        }
    }
    // snippet.end
    // snippet.hide
    struct SignInView: View {
        let account: Account
        var body: some View { Text("Sign in") }
    }
#endif

#if canImport(AuthenticationServices)
    // snippet.show
    // snippet.sign-in
    import AuthenticationServices

    extension Account {
        /// `window` is held weakly by the browser sheet: the caller keeps it alive (a window scene's delegate).
        func signIn(from window: any ASWebAuthenticationPresentationContextProviding) async {
            do {
                let request = try await provider.authorizationRequest(
                    redirectURI: URL(string: "com.example.app://callback")!)
                let callback = try await withCheckedThrowingContinuation { continuation in
                    let web = ASWebAuthenticationSession(
                        url: request.url, callback: .customScheme("com.example.app")
                    ) { url, error in
                        if let url {
                            continuation.resume(returning: url)
                        } else {
                            continuation.resume(throwing: error!)
                        }
                    }
                    web.presentationContextProvider = window
                    web.start()
                }
                // Step 1 of the guide, "On login: store the user's token": the whole result, in one write.
                try await session.store(try await provider.exchange(callback: callback, for: request))
                needsSignIn = false
                profile = try await session.userInfo()
            } catch {
                needsSignIn = true
            }
        }
    }
// snippet.end
// snippet.hide
#endif

#if canImport(SwiftUI)
    // snippet.show
    // snippet.steps
    extension Account {
        /// "On startup: check accessToken existence", and "Validate an accessToken".
        func restore() async {
            do {
                guard try await session.hasSession() else {
                    needsSignIn = true
                    return
                }
                profile = try await session.cachedProfile()  // shown at once, even offline
                profile = try await session.userInfo()  // asks /userinfo with a valid token
            } catch  where error.code == .signInRequired {
                needsSignIn = true  // revoked: SessionKit has cleared it
            } catch {
                // Offline, a 5xx, or the keychain locked before the first unlock: the session is kept.
            }
        }

        /// "Dealing with a non-valid accessToken": renewed with the refresh token, rotation included.
        func callAPI(_ request: URLRequest) async throws -> Data {
            let credentials = try await session.credentials(minTTL: 60)
            var request = request
            request.setValue("Bearer \(credentials.accessToken.unsafeRawValue)", forHTTPHeaderField: "Authorization")
            return try await URLSession.shared.data(for: request).0
        }

        /// "On Logout: Clear the Keychain": revokes the refresh token, then clears the session.
        func signOut() async {
            _ = try? await session.logout()
            profile = nil
            needsSignIn = true
        }

        /// "Update the User Profile" and "Retrieving User Metadata", through the Management API.
        func setCountry(_ country: String) async throws {
            guard let id = profile?.subject else { return }
            let management = ManagementClient(session: session)
            _ = try await management.patchUserMetadata(id: id, ["country": .string(country)])
        }
    }

    struct RootView: View {
        @State private var account = Account()

        var body: some View {
            Group {
                if account.needsSignIn {
                    SignInView(account: account)
                } else {
                    Text(account.profile?.name ?? "…")
                }
            }
            .task { await account.restore() }
        }
    }
// snippet.end
// snippet.hide
#endif

// An extension's view of the same session, which compiles everywhere (a memory store stands in for the Keychain).
let provider = ProviderClient(
    configuration: try ProviderConfiguration(
        issuer: URL(string: "https://example.eu.auth0.com/")!, clientID: "YOUR_CLIENT_ID"))
let session = SessionManager(provider: provider, store: MemoryStore(service: "com.example.app.session"))
// snippet.show
// snippet.widget
let token = try session.localCredentials(minTTL: 30)  // throws when it needs a renewal; the app renews
