import AuthEmulator
import Foundation
import NIOHTTP1
import SessionKit
import SessionKitBFF
import SessionKitServer
import SessionKitTesting
import Testing

/// Shared Signals (OpenID SSF 1.0, push delivery RFC 8935): the provider's word that a user's session was revoked,
/// a credential changed or the account was disabled ends their sessions on every instance, once; a replayed,
/// forged or foreign token ends nothing.
@Suite("Shared Signals receiver", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct SecurityEventTests {
    static let client = AuthEmulator.Client.confidentialID

    @Test("session-revoked ends alice's sessions on both instances, not bob's; the same token again is refused on B")
    func sessionRevoked() async throws {
        try await Self.withTwoInstances { emulator, a, b, alice, bob in
            #expect(try await alice.signIn(through: a.url).status == 303)
            #expect(
                try await bob.signIn(
                    through: a.url, email: AuthEmulator.User.bobEmail, password: AuthEmulator.User.bobPassword
                ).status == 303)
            #expect(try await alice.get(b.at("/auth/me")).status == 200, "alice's session works on B")

            let deliveries = try await emulator.controls.sendSecurityEvent(
                AuthEmulator.SecurityEventType.sessionRevoked, subject: AuthEmulator.User.aliceID,
                toClient: Self.client)
            let delivery = try #require(deliveries.first)
            #expect(delivery.status == 202, "A accepted the token: \(delivery)")
            #expect(try await alice.isRefused(on: b), "B refuses alice's session within a second")
            #expect(try await alice.get(a.at("/auth/me")).status == 401)
            #expect(try await bob.get(b.at("/auth/me")).status == 200, "bob is still signed in")

            // The same token, on the other instance: refused as delivered before, and a new sign-in is kept.
            #expect(try await alice.signIn(through: a.url).status == 303)
            let replay = try await Self.post(delivery.token, to: b, with: alice)
            #expect(replay.status == 400)
            #expect(replay.json["err"] as? String == "invalid_request")
            #expect(try await alice.get(b.at("/auth/me")).status == 200)
        }
    }

    @Test("account-disabled delivered twice ends the sessions once and revokes the refresh token")
    func duplicateDelivery() async throws {
        try await Self.withTwoInstances { emulator, a, b, alice, _ in
            #expect(try await alice.signIn(through: a.url).status == 303)
            let id = try #require(SealedCookies.id(fromCookie: alice.cookies["sessionkit"]))
            let stored = try #require(try await b.bff.sessions.storedCredentials(for: id))
            #expect(stored.refreshToken != nil)

            let deliveries = try await emulator.controls.sendSecurityEvent(
                AuthEmulator.SecurityEventType.accountDisabled, subject: AuthEmulator.User.aliceID,
                toClient: Self.client, fault: .duplicate)
            #expect(deliveries.map(\.status) == [202, 400], "\(deliveries)")
            #expect(try await alice.isRefused(on: b))
            do throws(SessionKitError) {
                _ = try await a.bff.provider.renew(stored)
                Issue.record("the refresh token still works after account-disabled")
            } catch {
                #expect(error.code == .providerError, "the provider refuses the revoked refresh token: \(error)")
            }
        }
    }

    @Test("a forged, foreign, old, untyped-body or unknown-event token ends nothing")
    func refusals() async throws {
        try await Self.withTwoInstances { emulator, a, b, alice, _ in
            #expect(try await alice.signIn(through: a.url).status == 303)
            let forged = try await emulator.controls.sendSecurityEvent(
                AuthEmulator.SecurityEventType.sessionRevoked, subject: AuthEmulator.User.aliceID,
                toClient: Self.client, fault: .unpublishedKey)
            #expect(forged.first?.status == 400)
            let refusal = try await Self.post(forged[0].token, to: b, with: alice)
            #expect(refusal.json["err"] as? String == "invalid_key")

            // A token for another audience (the native client's): invalid_audience.
            try await emulator.controls.setSecurityEventReceiver(
                a.at("/auth/ssf/events"), forClient: AuthEmulator.Client.nativeID)
            let foreign = try await emulator.controls.sendSecurityEvent(
                AuthEmulator.SecurityEventType.sessionRevoked, subject: AuthEmulator.User.aliceID,
                toClient: AuthEmulator.Client.nativeID)
            #expect(foreign.first?.status == 400)
            #expect(
                try await Self.post(foreign[0].token, to: b, with: alice).json["err"] as? String == "invalid_audience")

            // The right token in a form body: the content type is refused before anything is read.
            let good = try await emulator.controls.sendSecurityEvent(
                "https://schemas.openid.net/secevent/caep/event-type/token-claims-change",
                subject: AuthEmulator.User.aliceID, toClient: Self.client)
            #expect(good.first?.status == 202, "an event type the receiver does not act on is acknowledged")
            let form = try await alice.send(
                .POST, b.at("/auth/ssf/events"), headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Data(good[0].token.utf8), cookies: false)
            #expect(form.status == 400)
            #expect(try await alice.get(b.at("/auth/me")).status == 200, "nothing was ended by any of them")
            #expect(try await alice.get(a.at("/auth/me")).status == 200)
        }
    }

    @Test("a slow transmitter's token, delivered a second after it was minted, still ends the sessions")
    func slowDelivery() async throws {
        try await Self.withTwoInstances { emulator, a, b, alice, _ in
            #expect(try await alice.signIn(through: a.url).status == 303)
            let made = try await emulator.controls.sendSecurityEvent(
                AuthEmulator.SecurityEventType.credentialChange, subject: AuthEmulator.User.aliceID,
                toClient: Self.client, fault: .slow(seconds: 1))
            #expect(made.first?.status == 202, "\(made)")
            #expect(try await alice.isRefused(on: b))
        }
    }

    /// Two instances over one PostgreSQL deployment, the emulator pushing the confidential client's events to A,
    /// and two browsers; stops everything after `body`.
    static func withTwoInstances(
        _ body: (AuthEmulator, InProcessInstance, InProcessInstance, CookieBrowser, CookieBrowser) async throws -> Void
    ) async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let a = try await InProcessInstance.start(emulator: emulator, store: try await deployment.store())
            let b = try await InProcessInstance.start(
                emulator: emulator, store: try await deployment.store(), publicURL: a.url)
            try await emulator.controls.setSecurityEventReceiver(a.at("/auth/ssf/events"), forClient: client)
            let alice = CookieBrowser()
            let bob = CookieBrowser()
            do {
                try await body(emulator, a, b, alice, bob)
            } catch {
                Issue.record(error)
            }
            await alice.shutdown()
            await bob.shutdown()
            await a.stop()
            await b.stop()
        }
    }

    static func post(_ token: String, to instance: InProcessInstance, with browser: CookieBrowser) async throws
        -> CookieBrowser.Page
    {
        try await browser.send(
            .POST, instance.at("/auth/ssf/events"), headers: [("Content-Type", "application/secevent+jwt")],
            body: Data(token.utf8), cookies: false)
    }
}
