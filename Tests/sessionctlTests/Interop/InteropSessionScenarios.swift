import Foundation
import SessionKit
import Testing

/// The seeds' session story through the library, the same for every provider (`InteropProviderKind.covered`).
@Suite("Interop: the session story through the library, against each provider")
struct InteropSessionScenarios {
    @Test(
        "restore: a relaunched manager finds the stored session and uses it without a request",
        arguments: InteropProviderKind.covered)
    func restore(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            let session = try InteropSession(provider)
            defer { session.cleanUp() }
            let signedIn = try await session.signIn(provider)
            let relaunched = try session.relaunched()
            #expect(try await relaunched.hasSession())
            #expect(try await relaunched.storedCredentials() == signedIn)
            #expect(try await relaunched.hasValidCredentials())
            #expect(try await relaunched.canRenew())
            #expect(try await relaunched.credentials().accessToken == signedIn.accessToken)
            let refreshToken = try #require(signedIn.refreshToken?.unsafeRawValue)
            #expect(try await provider.refreshGrants(presenting: [refreshToken]) == 0)
        }
    }

    @Test("userinfo: the profile comes from the provider and stays cached", arguments: InteropProviderKind.covered)
    func userInfo(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            let session = try InteropSession(provider)
            defer { session.cleanUp() }
            let signedIn = try await session.signIn(provider)
            let profile = try await session.manager.userInfo()
            #expect(!profile.subject.isEmpty)
            if let subject = signedIn.idTokenClaims?.subject {
                #expect(profile.subject == subject)
            }
            #expect(try await session.relaunched().cachedProfile()?.subject == profile.subject)
        }
    }

    @Test("expiry, then silent renewal with rotation in one request", arguments: InteropProviderKind.covered)
    func expiryAndRenewal(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            let session = try InteropSession(provider)
            defer { session.cleanUp() }
            let first = try await session.signIn(provider)
            try await waitUntilExpired(first)
            #expect(try await !session.manager.hasValidCredentials())
            await #expect(
                performing: { _ = try await session.client.userInfo(accessToken: first.accessToken) },
                throws: isUnauthorized)

            let renewed = try await session.manager.credentials()
            #expect(renewed.accessToken != first.accessToken)
            #expect(renewed.isValid(now: Date()))
            let oldRefresh = try #require(first.refreshToken?.unsafeRawValue)
            let newRefresh = try #require(renewed.refreshToken?.unsafeRawValue)
            #expect(newRefresh != oldRefresh, "the refresh token rotated")
            #expect(try await session.relaunched().storedCredentials() == renewed, "stored before it was returned")
            #expect(try await provider.refreshGrants(presenting: [oldRefresh, newRefresh]) == 1)
            _ = try await session.client.userInfo(accessToken: renewed.accessToken)
        }
    }

    @Test(
        "reuse protection: a replayed refresh token is refused; where the family is revoked, the session ends cleanly",
        arguments: InteropProviderKind.covered)
    func reuseProtection(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            let session = try InteropSession(provider)
            defer { session.cleanUp() }
            let first = try await session.signIn(provider)
            let renewed = try await session.manager.renew()
            #expect(renewed.refreshToken != first.refreshToken)
            // Someone replays the spent refresh token: the provider refuses it.
            await #expect(performing: { _ = try await session.client.renew(first) }, throws: isInvalidGrant)
            guard provider.revokesFamilyOnReplay else {
                // django-oidc-provider refuses only the replayed token: the session's newest tokens keep working,
                // and it renews and stays signed in.
                _ = try await session.client.userInfo(accessToken: renewed.accessToken)
                let again = try await session.manager.renew()
                #expect(again.refreshToken != renewed.refreshToken)
                #expect(try await session.relaunched().storedCredentials() == again)
                return
            }
            // It also revokes the whole family.
            await #expect(
                performing: { _ = try await session.client.userInfo(accessToken: renewed.accessToken) },
                throws: isUnauthorized)
            // The session learns it at its next renewal: signed out, told to sign in, nothing left in the store.
            await #expect(performing: { _ = try await session.manager.renew() }, throws: isSignInRequired)
            #expect(try await !session.manager.hasSession())
            #expect(try await !session.relaunched().hasSession())
        }
    }

    @Test(
        "a confidential client: the secret goes as discovery says, for sign-in and renewal; a wrong one is refused",
        arguments: InteropProviderKind.coveredWithConfidentialClient)
    func confidentialClient(kind: InteropProviderKind) async throws {
        try await kind.with { provider in
            let client = try #require(provider.confidentialClient, "\(provider.name) has no confidential client")
            var configuration = try provider.configuration()
            configuration.clientID = client.id
            configuration.clientSecret = Secret(client.secret)
            for method in [ClientAuthenticationMethod.automatic, .clientSecretBasic, .clientSecretPost] {
                configuration.clientAuthentication = method
                let confidential = ProviderClient(configuration: configuration)
                let signedIn = try await confidential.signIn(
                    username: provider.username, password: Secret(provider.password))
                let renewed = try await confidential.renew(signedIn)
                #expect(renewed.accessToken != signedIn.accessToken, "\(method)")
            }
            configuration.clientSecret = Secret(client.secret + "-wrong")
            configuration.clientAuthentication = .automatic
            do {
                _ = try await ProviderClient(configuration: configuration)
                    .signIn(username: provider.username, password: Secret(provider.password))
                Issue.record("\(provider.name) accepted a wrong client secret")
            } catch let error as SessionKitError {
                #expect(error.oauthError == "invalid_client" && !error.isRetryable, "\(error)")
            }
        }
    }
}
