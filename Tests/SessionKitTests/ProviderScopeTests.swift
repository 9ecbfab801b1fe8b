import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// A provider's defaults, respected: the default scope asks for `offline_access` only where discovery lists it
/// (django-oauth-toolkit's defaults do not, issue refresh tokens without it and refuse it as unknown), and an
/// `invalid_scope` answer says which scope was refused, what the provider lists and how to change it. The
/// emulator plays such a provider (`offlineAccessIsAScope = false`).
@Suite("Scopes: the default follows discovery; a refused scope is named")
struct ProviderScopeTests {
    static let withoutOfflineAccess = LiveEmulator.configuration { $0.offlineAccessIsAScope = false }

    static func provider(_ emulator: AuthEmulator, scope: String? = nil) throws -> ProviderClient {
        ProviderClient(
            configuration: try ProviderConfiguration(
                issuer: emulator.issuer, clientID: AuthEmulator.Client.nativeID, scope: scope))
    }

    static func scopeParameter(_ request: AuthorizationRequest) -> String? {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "scope" }?
            .value
    }

    static let redirect = URL(string: "http://127.0.0.1:8765/callback")!

    @Test("discovery without offline_access: the default scope leaves it out, and a refresh token comes anyway")
    func defaultScopeFollowsDiscovery() async throws {
        try await LiveEmulator.with(Self.withoutOfflineAccess) { emulator in
            let provider = try Self.provider(emulator)
            let credentials = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            #expect(credentials.refreshToken != nil)
            #expect(credentials.scopes.contains("openid") && !credentials.scopes.contains("offline_access"))
            let request = try await provider.authorizationRequest(redirectURI: Self.redirect)
            #expect(Self.scopeParameter(request) == "openid profile email")
            _ = try await provider.startDeviceAuthorization()
        }
    }

    @Test("discovery with offline_access (Auth0): the default scope asks for it")
    func defaultScopeWithOfflineAccess() async throws {
        try await LiveEmulator.with { emulator in
            let request = try await Self.provider(emulator).authorizationRequest(redirectURI: Self.redirect)
            #expect(Self.scopeParameter(request) == ProviderConfiguration.defaultScope)
        }
    }

    @Test("a scope set explicitly is sent as it is; invalid_scope names it, what discovery lists, and the setting")
    func refusedScopeIsNamed() async throws {
        try await LiveEmulator.with(Self.withoutOfflineAccess) { emulator in
            let provider = try Self.provider(emulator, scope: "openid offline_access")
            func explained(_ error: any Error) -> Bool {
                guard let error = error as? SessionKitError else { return false }
                return error.oauthError == "invalid_scope" && error.message.contains("'openid offline_access'")
                    && error.message.contains("document lists 'openid profile email ")
                    && error.message.contains("--scope") && error.message.contains("ProviderConfiguration.scope")
            }
            await #expect {
                _ = try await provider.signIn(
                    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            } throws: { explained($0) }
            await #expect { _ = try await provider.startDeviceAuthorization() } throws: { explained($0) }
            // The browser comes back from /authorize with error=invalid_scope.
            let request = try await provider.authorizationRequest(redirectURI: Self.redirect)
            #expect(Self.scopeParameter(request) == "openid offline_access")
            let callback = try await LoopbackBrowser().redirect(fromAuthorization: request.url)
            await #expect { _ = try await provider.exchange(callback: callback, for: request) } throws: {
                explained($0)
            }
        }
    }
}
