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

/// Complete logout: the provider's session ends with the app's (RP-initiated logout), and the provider's word
/// that a user signed out there reaches every instance (back-channel logout), once.
@Suite("Logout at the provider", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct LogoutTests {
    @Test("sign out sends the browser to the provider's end-session endpoint; the next sign-in asks for the password")
    func providerLogout() async throws {
        try await LiveEmulator.with { emulator in
            let instance = try await InProcessInstance.start(
                emulator: emulator, store: try await BFFPostgres.Deployment().store())
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance.url).status == 303)
                // Signed in at the provider too: a new sign-in goes straight back, no password asked.
                let again = try await browser.get(instance.at("/auth/login"))
                let silent = try await browser.get(try #require(again.location))
                #expect((300..<400).contains(silent.status), "the provider remembers the user")
                _ = try await browser.get(CookieBrowser.rebase(try #require(silent.location), onto: instance.url))

                let logout = try await browser.send(.POST, instance.at("/auth/logout"), headers: [("X-CSRF", "1")])
                #expect(logout.status == 200)
                let url = try #require((logout.json["logout_url"] as? String).flatMap(URL.init(string:)))
                let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
                let value = { (name: String) in items.first { $0.name == name }?.value }
                #expect(url.path == "/oidc/logout")
                #expect(value("id_token_hint")?.split(separator: ".").count == 3)
                #expect(value("post_logout_redirect_uri") == instance.urlString + "/")
                let state = try #require(value("state"))
                let back = try await browser.get(url)
                #expect((300..<400).contains(back.status), "the provider ended its session and sent the browser back")
                let landing = try #require(back.location)
                #expect(landing.absoluteString.hasPrefix(instance.urlString + "/"))
                #expect(URLComponents(url: landing, resolvingAgainstBaseURL: false)?.queryItems?.first?.value == state)
                #expect(try await browser.get(instance.at("/auth/me")).status == 401)

                let next = try await browser.get(instance.at("/auth/login"))
                let form = try await browser.get(try #require(next.location))
                #expect(form.status == 200 && form.text.contains("<form"), "the password is asked again")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }

    @Test("a form post to /auth/logout is redirected to the provider; provider logout off gives no logout_url")
    func formPostAndOff() async throws {
        try await LiveEmulator.with { emulator in
            let store = try await BFFPostgres.Deployment().store()
            let on = try await InProcessInstance.start(emulator: emulator, store: store)
            let off = try await InProcessInstance.start(emulator: emulator, store: store) { $0.providerLogout = false }
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: on.url).status == 303)
                let form = try await browser.send(
                    .POST, on.at("/auth/logout"),
                    headers: [("Origin", on.urlString), ("Content-Type", "application/x-www-form-urlencoded")],
                    body: Data())
                #expect(form.status == 303)
                #expect(form.location?.path == "/oidc/logout")
                let plain = try await browser.send(.POST, off.at("/auth/logout"), headers: [("X-CSRF", "1")])
                #expect(plain.status == 200)
                #expect(plain.json["logout_url"] is NSNull)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await on.stop()
            await off.stop()
        }
    }

    @Test("a back-channel logout sent to instance A ends the user's session on B within a second; a replay gets 400")
    func backChannel() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let a = try await InProcessInstance.start(emulator: emulator, store: try await deployment.store())
            let b = try await InProcessInstance.start(
                emulator: emulator, store: try await deployment.store(), publicURL: a.url)
            try await emulator.controls.setBackchannelLogoutURI(
                a.at("/auth/backchannel-logout"), forClient: AuthEmulator.Client.confidentialID)
            let alice = CookieBrowser()
            let bob = CookieBrowser()
            do {
                #expect(try await alice.signIn(through: a.url).status == 303)
                #expect(
                    try await bob.signIn(
                        through: a.url, email: AuthEmulator.User.bobEmail, password: AuthEmulator.User.bobPassword
                    ).status == 303)
                #expect(try await alice.get(b.at("/auth/me")).status == 200, "alice's session works on B")

                let deliveries = try await emulator.controls.endSessions(forUser: AuthEmulator.User.aliceID)
                let delivery = try #require(deliveries.first { $0.clientID == AuthEmulator.Client.confidentialID })
                #expect(delivery.status == 200, "A accepted the logout token: \(delivery)")
                #expect(try await alice.isRefused(on: b), "B refuses alice's session within a second")
                #expect(try await bob.get(b.at("/auth/me")).status == 200, "bob is still signed in")

                // The same token again, on either instance: 400, and a new sign-in of alice is left alone.
                #expect(try await alice.signIn(through: a.url).status == 303)
                for instance in [a, b] {
                    let replay = try await Self.post(delivery.logoutToken, to: instance, with: alice)
                    #expect(replay.status == 400)
                    #expect(replay.json["error"] as? String == "invalid_request")
                }
                // Tampered (one character of the claims changed) or not a logout token at all: 400.
                var parts = delivery.logoutToken.split(separator: ".").map(String.init)
                parts[1] = String(parts[1].dropLast()) + (parts[1].last == "A" ? "B" : "A")
                #expect(try await Self.post(parts.joined(separator: "."), to: a, with: alice).status == 400)
                #expect(try await Self.post("not-a-jwt", to: a, with: alice).status == 400)
                #expect(try await alice.get(a.at("/auth/me")).status == 200, "nothing was ended by the refusals")

                // A fresh token for bob's provider session id ends bob's session only.
                let bobID = try #require(SealedCookies.id(fromCookie: bob.cookies["sessionkit"]))
                let bobSID = try #require(
                    try await b.bff.sessions.storedCredentials(for: bobID)?.idTokenClaims?.sessionID)
                let bySID = try await emulator.controls.sendLogoutToken(
                    toClient: AuthEmulator.Client.confidentialID, subject: nil, sid: bobSID)
                #expect(bySID.status == 200)
                #expect(try await bob.get(b.at("/auth/me")).status == 401)
                #expect(try await alice.get(b.at("/auth/me")).status == 200)
            } catch {
                Issue.record(error)
            }
            await alice.shutdown()
            await bob.shutdown()
            await a.stop()
            await b.stop()
        }
    }

    static func post(_ token: String, to instance: some BFFInstance, with browser: CookieBrowser) async throws
        -> CookieBrowser.Page
    {
        try await browser.send(
            .POST, instance.at("/auth/backchannel-logout"),
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Data("logout_token=\(token)".utf8), cookies: false)
    }
}
