import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Issue 25: access tokens for several APIs from one sign-in. The emulator serves them from the session's one
/// refresh token as Auth0's Multi-Resource Refresh Token does (the seeded clients' refresh-token policies name
/// the demo and payments APIs), and rotates that refresh token with reuse detection: a renewal that spent it
/// twice would end the session, so every test here would see `signInRequired`.
@Suite("Tokens for several APIs from one sign-in")
struct AudienceTokensTests {
    static let demo = AuthEmulator.API.demoIdentifier
    static let payments = AuthEmulator.API.paymentsIdentifier

    static func audiences(of credentials: Credentials) throws -> [String] {
        try JWT(decoding: credentials.accessToken.unsafeRawValue).audience
    }

    @Test("each API's token has its audience and scope, is kept in the session, and the session's own is unchanged")
    func tokensPerAudience() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let signedIn = try await live.signIn()
            try await emulator.controls.resetRequestCounts()

            let demo = try await live.session.credentials(audience: Self.demo, minTTL: 60)
            let payments = try await live.session.credentials(audience: Self.payments, scope: "read:payments")
            #expect(try Self.audiences(of: demo).contains(Self.demo))
            #expect(try Self.audiences(of: payments).contains(Self.payments))
            #expect(try !Self.audiences(of: payments).contains(Self.demo))
            #expect(payments.scope == "read:payments")
            #expect(demo.refreshToken == nil && demo.idToken == nil, "the refresh and ID tokens are the session's")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2)

            // Served again from memory, and by a relaunched app from the store: no request.
            #expect(try await live.session.credentials(audience: Self.demo, minTTL: 60) == demo)
            let relaunched = try live.relaunched()
            #expect(try relaunched.localCredentials(audience: Self.payments, scope: "read:payments") == payments)
            #expect(try await relaunched.credentials(audience: Self.demo) == demo)
            #expect(try relaunched.localCredentials(audience: Self.payments) == nil, "another scope, another token")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2)

            // The session's access token is as signed in; its refresh token is the last rotated one, which renews.
            let stored = try #require(try await relaunched.storedCredentials())
            #expect(stored.accessToken == signedIn.accessToken)
            #expect(stored.refreshToken != signedIn.refreshToken, "each API's renewal rotated the refresh token")
            live.expire(payments)  // the last token received: every one of them has expired with the clock
            let renewed = try await relaunched.credentials(minTTL: 60)
            #expect(renewed.accessToken != signedIn.accessToken)
            #expect(try relaunched.localCredentials(audience: Self.demo) == nil, "expired with the clock")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 3)
        }
    }

    @Test("expired tokens for two APIs, twenty callers each at once: one refresh per API")
    func concurrentCallersRenewOncePerAudience() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let signedIn = try await live.signIn()
            _ = try await live.session.credentials(audience: Self.demo)
            _ = try await live.session.credentials(audience: Self.payments)
            live.expire(signedIn)
            try await emulator.controls.resetRequestCounts()
            try await emulator.controls.inject(.latency(0.3).only(.refreshToken), into: .token)
            let session = live.session
            let tokens = try await withThrowingTaskGroup(of: (String, Credentials).self) { group in
                for index in 0..<40 {
                    let audience = index.isMultiple(of: 2) ? Self.demo : Self.payments
                    group.addTask { (audience, try await session.credentials(audience: audience, minTTL: 60)) }
                }
                return try await group.reduce(into: [String: Set<String>]()) {
                    $0[$1.0, default: []].insert($1.1.accessToken.unsafeRawValue)
                }
            }
            #expect(tokens.mapValues(\.count) == [Self.demo: 1, Self.payments: 1])
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2)
            #expect(try await session.credentials(minTTL: 60).refreshToken != signedIn.refreshToken)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 3, "the session's own, renewed")
        }
    }

    @Test("two app instances over one store ask for two APIs at once: one refresh each, nobody signed out")
    func twoInstancesTwoAudiences() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await live.signIn()
            let first = try live.relaunched()
            let second = try live.relaunched()
            try await emulator.controls.resetRequestCounts()
            try await emulator.controls.inject(.latency(0.5).only(.refreshToken), into: .token)
            async let demo = first.credentials(audience: Self.demo, minTTL: 60)
            async let payments = second.credentials(audience: Self.payments, minTTL: 60)
            let (demoToken, paymentsToken) = try await (demo, payments)
            #expect(try Self.audiences(of: demoToken).contains(Self.demo))
            #expect(try Self.audiences(of: paymentsToken).contains(Self.payments))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2)
            // Each instance sees the other's token, and the session renews with the refresh token stored last.
            #expect(try await first.credentials(audience: Self.payments, minTTL: 60) == paymentsToken)
            #expect(try await second.credentials(audience: Self.demo, minTTL: 60) == demoToken)
            #expect(try await second.renew().accessToken.unsafeRawValue.isEmpty == false)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 3)
        }
    }

    @Test("an API the client may not ask for, or a scope outside its policy: refused, and the session is kept")
    func refusedAudienceKeepsSession() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await live.signIn()
            for (audience, scope, oauthError) in [
                ("https://unknown.example/", nil, "access_denied"), (Self.payments, "write:data", "invalid_scope"),
            ] {
                let error = await #expect(throws: SessionKitError.self) {
                    try await live.session.credentials(audience: audience, scope: scope)
                }
                #expect(error?.code == .providerError, "\(String(describing: error))")
                #expect(error?.oauthError == oauthError)
                #expect(try await live.session.hasSession())
            }
            // The refresh token was not spent by the refusals (reuse would have revoked the whole family).
            #expect(try await live.session.credentials(audience: Self.demo).accessToken.unsafeRawValue.isEmpty == false)
            #expect(try await live.session.renew().refreshToken != nil)
        }
    }

    @Test("logout and a new sign-in drop every API's token")
    func logoutDropsAPITokens() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await live.signIn()
            let demo = try await live.session.credentials(audience: Self.demo)
            try await live.signIn()
            #expect(try live.relaunched().localCredentials(audience: Self.demo) == nil)
            #expect(try await live.session.credentials(audience: Self.demo) != demo)
            try await live.session.logout()
            #expect(try live.relaunched().localCredentials(audience: Self.demo) == nil)
            let error = await #expect(throws: SessionKitError.self) {
                try await live.session.credentials(audience: Self.demo)
            }
            #expect(error?.code == .signInRequired)
        }
    }
}
