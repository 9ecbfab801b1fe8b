import AuthEmulator
import Foundation
import NIOHTTP1
import SessionKitBFF
import SessionKitServer
import SessionKitSupport
import SessionKitTesting
import Testing

@testable import SessionKit

/// What a replayed callback and a stranger posting logout tokens can do
/// to the back end for front ends: two instances in this process sharing PostgreSQL, against the live emulator.
@Suite("Sign-in replays and back-channel abuse", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct EdgeTrustTests {
    @Test("a callback replayed with its sign-in cookie is refused on every instance and never reaches the provider")
    func replayedCallback() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let a = try await InProcessInstance.start(emulator: emulator, store: try await deployment.store())
            let b = try await InProcessInstance.start(
                emulator: emulator, store: try await deployment.store(), publicURL: a.url)
            let browser = CookieBrowser()
            do {
                let callback = try await browser.callbackURL(from: a.url)
                let signIn = try #require(browser.cookies.first { $0.key.hasPrefix("sessionkit-signin-") })
                try await emulator.controls.resetRequestCounts()
                #expect(try await browser.get(CookieBrowser.rebase(callback, onto: b.url)).status == 303)
                #expect(try await browser.get(a.at("/api/userinfo"), headers: [("X-CSRF", "1")]).status == 200)
                // The sign-in cookie kept (a browser that ignores the deletion, or an attacker with a copy).
                for instance in [a, b, a] {
                    browser.setCookie(signIn.key, signIn.value)
                    let replay = try await browser.get(CookieBrowser.rebase(callback, onto: instance.url))
                    #expect(replay.status == 400)
                    #expect(replay.text.contains("already used"), "\(replay.text)")
                }
                #expect(
                    try await emulator.controls.requestCounts()[.authorizationCode] == 1,
                    "a replayed callback sent the spent code again")
                // The provider revoked nothing, so the session made by the first callback goes on.
                let after = try await browser.get(b.at("/api/userinfo"), headers: [("X-CSRF", "1")])
                #expect(after.status == 200, "\(after.status) \(after.text)")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await a.stop()
            await b.stop()
        }
    }

    /// A logout token whose claims pass every check and whose header names `kid`, with a made-up signature.
    static func strangerToken(issuer: URL, kid: String, issuer claimedIssuer: String? = nil) -> String {
        func part(_ object: [String: Any]) -> String {
            Base64URL.encode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let now = Int(Date().timeIntervalSince1970)
        let header = part(["alg": "RS256", "kid": kid, "typ": "logout+jwt"])
        let claims = part([
            "iss": claimedIssuer ?? issuer.absoluteString, "aud": AuthEmulator.Client.confidentialID, "iat": now,
            "exp": now + 120, "jti": UUID().uuidString, "sub": AuthEmulator.User.aliceID,
            "events": [LogoutToken.event: [String: Any]()],
        ])
        return header + "." + claims + "." + Base64URL.encode(Data(repeating: 7, count: 256))
    }

    @Test("200 logout tokens naming made-up key ids cost at most one key-set fetch; bad claims cost none")
    func madeUpKeyIDs() async throws {
        try await LiveEmulator.with { emulator in
            let a = try await InProcessInstance.start(
                emulator: emulator, store: try await BFFPostgres.Deployment().store())
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: a.url).status == 303, "the key set is loaded")
                let kept = a.bff.provider.validatedIDTokens.count
                try await emulator.controls.resetRequestCounts()
                var statuses: [Int] = []
                for batch in 0..<10 {
                    statuses += try await withThrowingTaskGroup(of: Int.self) { group in
                        for index in 0..<20 {
                            let token = Self.strangerToken(issuer: emulator.issuer, kid: "made-up-\(batch)-\(index)")
                            group.addTask { try await LogoutTests.post(token, to: a, with: browser).status }
                        }
                        return try await group.reduce(into: [Int]()) { $0.append($1) }
                    }
                }
                #expect(statuses.allSatisfy { $0 == 400 || $0 == 503 }, "\(Set(statuses))")
                #expect(try await emulator.controls.requestCounts()[.jwks] <= 1, "one fetch at most for 200 tokens")
                #expect(a.bff.provider.validatedIDTokens.count == kept, "the verified tokens were kept")
                try await emulator.controls.resetRequestCounts()
                for _ in 0..<50 {
                    let token = Self.strangerToken(
                        issuer: emulator.issuer, kid: UUID().uuidString, issuer: "https://evil.example/")
                    #expect(try await LogoutTests.post(token, to: a, with: browser).status == 400)
                }
                #expect(try await emulator.controls.requestCounts()[.jwks] == 0, "claims are checked first")
                #expect(try await browser.get(a.at("/auth/me")).status == 200)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await a.stop()
        }
    }

    @Test("a logout token with a sid ends that sign-on session only; one without ends every session of the user")
    func sidScoped() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let a = try await InProcessInstance.start(emulator: emulator, store: try await deployment.store())
            try await emulator.controls.setBackchannelLogoutURI(
                a.at("/auth/backchannel-logout"), forClient: AuthEmulator.Client.confidentialID)
            let laptop = CookieBrowser()
            let phone = CookieBrowser()
            let tablet = CookieBrowser()
            do {
                for device in [laptop, phone, tablet] {
                    #expect(try await device.signIn(through: a.url).status == 303)
                }
                let laptopID = try #require(SealedCookies.id(fromCookie: laptop.cookies["sessionkit"]))
                let sid = try #require(
                    try await a.bff.sessions.storedCredentials(for: laptopID)?.idTokenClaims?.sessionID)
                let bySID = try await emulator.controls.sendLogoutToken(
                    toClient: AuthEmulator.Client.confidentialID, subject: AuthEmulator.User.aliceID, sid: sid)
                #expect(bySID.status == 200)
                #expect(try await laptop.get(a.at("/auth/me")).status == 401, "the laptop's sign-on session ended")
                #expect(try await phone.get(a.at("/auth/me")).status == 200, "the phone's did not")
                #expect(try await tablet.get(a.at("/auth/me")).status == 200, "nor the tablet's")
                let bySubject = try await emulator.controls.sendLogoutToken(
                    toClient: AuthEmulator.Client.confidentialID, subject: AuthEmulator.User.aliceID, sid: nil)
                #expect(bySubject.status == 200)
                #expect(try await phone.get(a.at("/auth/me")).status == 401)
                #expect(try await tablet.get(a.at("/auth/me")).status == 401)
            } catch {
                Issue.record(error)
            }
            for device in [laptop, phone, tablet] { await device.shutdown() }
            await a.stop()
        }
    }

    @Test("a provider that gives the name and email only from userinfo: /auth/me has them, fetched once at sign-in")
    func profileFromUserInfo() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.profileClaimsInIDToken = false }) { emulator in
            let deployment = BFFPostgres.Deployment()
            let a = try await InProcessInstance.start(emulator: emulator, store: try await deployment.store())
            let b = try await InProcessInstance.start(
                emulator: emulator, store: try await deployment.store(), publicURL: a.url)
            let browser = CookieBrowser()
            do {
                try await emulator.controls.resetRequestCounts()
                #expect(try await browser.signIn(through: a.url).status == 303)
                #expect(try await emulator.controls.requestCounts()[.userinfo] == 1, "fetched once, at sign-in")
                for instance in [a, b, b] {
                    let me = try await browser.get(instance.at("/auth/me"))
                    #expect(me.status == 200)
                    #expect(me.json["email"] as? String == AuthEmulator.User.aliceEmail, "\(me.text)")
                    #expect((me.json["name"] as? String)?.isEmpty == false, "\(me.text)")
                }
                #expect(try await emulator.controls.requestCounts()[.userinfo] == 1, "and kept in the session")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await a.stop()
            await b.stop()
        }
    }
}
