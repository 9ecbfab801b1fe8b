import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

@Suite("The seeds' story, end to end against the live emulator")
struct SeedsStoryTests {
    @Test("sign in, store, restore, validate, renew with rotation, profile, metadata, logout")
    func story() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(
                emulator,
                scope: ProviderConfiguration.defaultScope + " " + AuthEmulator.managementScope,
                audience: emulator.managementAudience
            )
            defer { live.cleanUp() }

            // On login: store the credentials.
            let signedIn = try await live.signIn()
            #expect(signedIn.refreshToken != nil)
            #expect(signedIn.idTokenClaims?.subject == AuthEmulator.User.aliceID)

            // On start-up: a relaunched app finds the session and restores it.
            let session = try live.relaunched()
            #expect(try await session.hasSession())
            #expect(try await session.hasValidCredentials(minTTL: 60))
            let restored = try await session.credentials()
            #expect(restored == signedIn)

            // Validate locally (the JWT's exp) and remotely (userinfo).
            let accessToken = try JWT(decoding: restored.accessToken.unsafeRawValue)
            #expect(!accessToken.isExpired(now: live.time.clock.now()))
            let profile = try await session.userInfo()
            #expect(profile.subject == AuthEmulator.User.aliceID)
            #expect(profile.email == AuthEmulator.User.aliceEmail)
            #expect(try await session.cachedProfile() == profile)

            // Expiry, then silent renewal with rotation.
            live.expire(restored)
            #expect(try await !session.hasValidCredentials())
            #expect(try await session.canRenew())
            try await emulator.controls.resetRequestCounts()
            let renewed = try await session.credentials(minTTL: 60)
            #expect(renewed.accessToken != restored.accessToken)
            #expect(renewed.refreshToken != restored.refreshToken, "the emulator rotates refresh tokens")
            #expect(renewed.isValid(minTTL: 60, now: live.time.clock.now()))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)

            // Profile metadata: patch and read back through the Management API.
            let management = ManagementClient(session: session)
            let patched = try await management.patchUserMetadata(
                id: profile.subject, ["first_name": "Alice", "country": "Canada"]
            )
            #expect(patched["user_metadata"]?["country"] == "Canada")
            let user = try await management.user(id: profile.subject, fields: ["user_metadata"])
            #expect(user["user_metadata"]?["first_name"] == "Alice")
            #expect(user["email"] == nil, "only the requested fields come back")
            #expect(try await session.cachedProfile()?.claims["user_metadata"]?["country"] == "Canada")

            // Logout revokes and clears; the old refresh token is then refused.
            let result = try await session.logout()
            #expect(result.revoked)
            #expect(try await !session.hasSession())
            #expect(try await !live.relaunched().hasSession())
            await #expect {
                _ = try await live.provider.renew(renewed)
            } throws: { error in
                (error as? SessionKitError)?.oauthError == "invalid_grant"
            }
            await #expect {
                _ = try await session.credentials()
            } throws: { error in
                (error as? SessionKitError)?.code == .signInRequired
            }
        }
    }

    @Test("token exchange trades a valid token for new credentials (the seeds' delegation step)")
    func tokenExchange() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            let exchanged = try await live.provider.exchange(
                subjectToken: try #require(credentials.idToken), subjectTokenType: .idToken
            )
            #expect(exchanged.accessToken != credentials.accessToken)
            #expect(exchanged.issuedTokenType != nil)
        }
    }

    @Test("the session's states are observable")
    func states() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            var updates = live.session.stateUpdates().makeAsyncIterator()
            let credentials = try await live.signIn()
            #expect(await updates.next() == .active(until: credentials.expiresAt))
            live.expire(credentials)
            let renewed = try await live.session.credentials()
            #expect(await updates.next() == .renewing)
            #expect(await updates.next() == .didRenew(until: renewed.expiresAt))
            #expect(await updates.next() == .active(until: renewed.expiresAt))
            _ = try await emulator.controls.revokeGrants(forUser: AuthEmulator.User.aliceID)
            live.expire(renewed)
            _ = try? await live.session.credentials()
            #expect(await updates.next() == .renewing)
            guard case .needsSignIn? = await updates.next() else {
                Issue.record("a revoked refresh token must end in needsSignIn")
                return
            }
            try await live.session.logout(revoke: false)
            #expect(await updates.next() == .signedOut)
        }
    }
}
