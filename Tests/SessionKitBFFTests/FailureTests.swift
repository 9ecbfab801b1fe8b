import AuthEmulator
import Crypto
import Foundation
import NIOHTTP1
import SecureStore
import SessionKit
import SessionKitBFF
import SessionKitPostgres
import SessionKitServer
import SessionKitTesting
import Testing

/// What the front end is told when a session cannot be renewed: sign in again (invalid_grant: the session is
/// deleted) or try again later (provider or database down: the session is kept).
@Suite("Renewal failures", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct FailureTests {
    @Test("invalid_grant → 401 with sign_in and the session deleted; provider down → 502 and the session kept")
    func provider() async throws {
        try await LiveEmulator.with { emulator in
            let store = try await BFFPostgres.Deployment().store()
            let instance = try await InProcessInstance.start(emulator: emulator, store: store)
            let browser = CookieBrowser()
            do {
                let ids = try await ExpiredSessions.create(2, emulator: emulator, store: store)
                let cookie = { (id: SessionID) in SealedCookies.header(id) + [("X-CSRF", "1")] }

                // The provider is down: 502, and the session is still there once it is back.
                try await emulator.controls.inject(.status(503), into: .token)
                let down = try await browser.send(
                    .GET, instance.at("/api/userinfo"), headers: cookie(ids[0]), cookies: false)
                #expect(down.status == 502)
                #expect(down.json["error"] as? String == "provider_unavailable")
                try await emulator.controls.clearFaults()
                let back = try await browser.send(
                    .GET, instance.at("/api/userinfo"), headers: cookie(ids[0]), cookies: false)
                #expect(back.status == 200)

                // The provider ended the session (its grants revoked): 401, sign in again, and the session deleted.
                let subject = try #require(
                    try await instance.bff.sessions.credentials(for: ids[0]).idTokenClaims?.subject)
                _ = try await emulator.controls.revokeGrants(forUser: subject)
                let ended = try await browser.send(
                    .GET, instance.at("/api/userinfo"), headers: cookie(ids[1]), cookies: false)
                #expect(ended.status == 401)
                #expect(ended.json["error"] as? String == "sign_in_required")
                #expect(ended.json["sign_in"] as? String == "/auth/login")
                #expect(ended.setCookies.contains { $0.hasPrefix("sessionkit=;") && $0.contains("Max-Age=0") })
                // What the store holds for it now: no credentials (SessionKit keeps only the generation counter,
                // which the store's sweep removes), so no instance can serve it again.
                let reader = SessionManager(provider: instance.bff.provider, store: store, account: ids[1].account)
                #expect(try await reader.storedCredentials() == nil, "the ended session's tokens were deleted")
                #expect(
                    try await browser.send(.GET, instance.at("/auth/me"), headers: cookie(ids[1]), cookies: false)
                        .status == 401)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }

    @Test("the provider asks for MFA on refresh → 401 step_up_required with sign_in; the session and cookie kept")
    func stepUp() async throws {
        try await LiveEmulator.with { emulator in
            let store = try await BFFPostgres.Deployment().store()
            let instance = try await InProcessInstance.start(emulator: emulator, store: store)
            let browser = CookieBrowser()
            do {
                let ids = try await ExpiredSessions.create(1, emulator: emulator, store: store)
                let headers = SealedCookies.header(ids[0]) + [("X-CSRF", "1")]
                try await emulator.controls.requireMultiFactor(forUser: AuthEmulator.User.aliceID)
                let refused = try await browser.send(
                    .GET, instance.at("/api/userinfo"), headers: headers, cookies: false)
                #expect(refused.status == 401)
                #expect(refused.json["error"] as? String == "step_up_required")
                #expect(refused.json["sign_in"] as? String == "/auth/login")
                #expect(refused.setCookies.isEmpty, "the cookie is kept: \(refused.setCookies)")
                try await emulator.controls.requireMultiFactor(forUser: AuthEmulator.User.aliceID, false)
                let back = try await browser.send(.GET, instance.at("/api/userinfo"), headers: headers, cookies: false)
                #expect(back.status == 200, "the session was kept")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }

    @Test("the session store (PostgreSQL) unreachable → 503 with Retry-After, nothing signed out")
    func databaseDown() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let store = try await deployment.store()
            let ids = try await ExpiredSessions.create(1, emulator: emulator, store: store)
            // The same deployment, but this instance's database address answers nothing.
            let unreachable = try await deployment.unreachableStore()
            let instance = try await InProcessInstance.start(emulator: emulator, store: unreachable)
            let browser = CookieBrowser()
            let page = try await browser.send(
                .GET, instance.at("/api/userinfo"), headers: SealedCookies.header(ids[0]) + [("X-CSRF", "1")],
                cookies: false)
            #expect(page.status == 503)
            #expect(page.headers.first(name: "Retry-After") == "1")
            #expect(page.setCookies.isEmpty, "the cookie is kept")
            let reader = SessionManager(provider: instance.bff.provider, store: store, account: ids[0].account)
            #expect(try await reader.storedCredentials() != nil, "the session is kept")
            await browser.shutdown()
            await instance.stop()
        }
    }

    @Test("an instance with the wrong sealing key: its sign-ins answer 503 and log why; the others' sessions go on")
    func wrongSealingKey() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let store = try await deployment.store()
            let good = try await InProcessInstance.start(emulator: emulator, store: store)
            let capture = LogCapture()
            let wrong = try await InProcessInstance.start(
                emulator: emulator, store: try await deployment.store(sealedWith: SymmetricKey(size: .bits256)),
                logger: capture.logger)
            let first = CookieBrowser()
            let second = CookieBrowser()
            do {
                #expect(try await first.signIn(through: good.url).status == 303)
                try await emulator.controls.resetRequestCounts()
                // The same user through the misconfigured instance: the user's row in the session index was sealed
                // with the deployment's key, so this instance cannot add the new session to it.
                let refused = try await second.signIn(through: wrong.url)
                #expect(refused.status == 503)
                let why = capture.lines.filter { $0.contains("the session could not be saved") }
                #expect(why.count == 1)
                #expect(why.first?.contains("failed authentication") == true, "\(why)")
                // The session it had created is ended, not left with a live refresh token that no cookie names.
                #expect(try await emulator.controls.requestCounts()[.revoke] == 1)
                // The session signed in through the correctly configured instance is untouched.
                let api = try await first.get(good.at("/api/userinfo"), headers: [("X-CSRF", "1")])
                #expect(api.status == 200)
            } catch {
                Issue.record(error)
            }
            await first.shutdown()
            await second.shutdown()
            await good.stop()
            await wrong.stop()
        }
    }
}
