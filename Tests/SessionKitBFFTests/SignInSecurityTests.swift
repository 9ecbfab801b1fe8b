import AuthEmulator
import Foundation
import NIOHTTP1
import SecureStore
import SessionKit
import SessionKitBFF
import SessionKitPostgres
import SessionKitServer
import SessionKitTesting
import Testing

/// The sign-in routes against forgery: callbacks replayed, tampered or from another browser, and a tampered nonce.
/// Two instances in this process share the store. Open redirects, cross-site requests and the cookies' attributes
/// are in SessionKitBFFRouterTests.
@Suite("Sign-in security", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct SignInSecurityTests {
    /// The number of sessions in `store` that hold credentials (a session that ended keeps only its generation).
    static func liveSessions(_ store: PostgresSessionStore, _ instance: InProcessInstance) async throws -> Int {
        var count = 0
        for key in try await store.keys() where key.contains("|sid-sha256:") {
            let account = String(key.split(separator: "|").last ?? "")
            let manager = SessionManager(provider: instance.bff.provider, store: store, account: account)
            if try await manager.storedCredentials() != nil { count += 1 }
        }
        return count
    }

    @Test("a replayed callback, a tampered state or code, and a callback in another browser are refused; no session")
    func callbacks() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let store = try await deployment.store()
            let a = try await InProcessInstance.start(emulator: emulator, store: store)
            let b = try await InProcessInstance.start(
                emulator: emulator, store: try await deployment.store(), publicURL: a.url)
            let browser = CookieBrowser()
            let other = CookieBrowser()
            do {
                // A tampered state: refused, and nothing is created.
                let first = try await browser.callbackURL(from: a.url)
                let badState = LoopbackBrowser.replacing("state", with: "forged-state", in: first)
                let refusedState = try await browser.get(badState)
                #expect(refusedState.status == 400)
                #expect(refusedState.text.contains("not valid here"))
                #expect(try await Self.liveSessions(store, a) == 0)

                // A tampered code with the right state: refused by the provider, no session, and the state is spent.
                let tamperedCode = LoopbackBrowser.replacing("code", with: "forged-code", in: first)
                let refusedCode = try await browser.get(tamperedCode)
                #expect(refusedCode.status == 400)
                #expect(refusedCode.setCookies.allSatisfy { !$0.hasPrefix("sessionkit=") || $0.contains("Max-Age=0") })
                #expect(try await Self.liveSessions(store, a) == 0)
                #expect(try await browser.get(first).status == 400, "the state was spent by the tampered attempt")

                // Another browser (no binding cookie) cannot use this browser's callback, on either instance.
                let second = try await browser.callbackURL(from: a.url)
                let stolen = try await other.get(CookieBrowser.rebase(second, onto: b.url))
                #expect(stolen.status == 400)
                #expect(stolen.text.contains("another browser"))
                #expect(try await Self.liveSessions(store, a) == 0)

                // A real sign-in, landing on B (the callback may reach any instance), then replayed: refused.
                let third = try await browser.callbackURL(from: a.url)
                let landed = try await browser.get(CookieBrowser.rebase(third, onto: b.url))
                #expect(landed.status == 303)
                #expect(try await Self.liveSessions(store, a) == 1)
                let cookie = try #require(browser.cookies["sessionkit"])
                let replayed = try await browser.get(third)
                #expect(replayed.status == 400)
                #expect(try await Self.liveSessions(store, a) == 1)
                #expect(browser.cookies["sessionkit"] == cookie, "a refused callback leaves the session alone")

                // Signing in again rotates the id: the old one is ended.
                let fourth = try await browser.callbackURL(from: a.url)
                #expect(try await browser.get(fourth).status == 303)
                let rotated = try #require(browser.cookies["sessionkit"])
                #expect(rotated != cookie)
                #expect(try await Self.liveSessions(store, a) == 1)
                #expect(
                    try await other.send(
                        .GET, a.at("/auth/me"), headers: [("Cookie", "sessionkit=\(cookie)")], cookies: false
                    )
                    .status == 401)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await other.shutdown()
            await a.stop()
            await b.stop()
        }
    }

    @Test("an ID token whose nonce is not the one sent (the authorization request tampered with) creates no session")
    func nonce() async throws {
        try await LiveEmulator.with { emulator in
            let store = try await BFFPostgres.Deployment().store()
            let a = try await InProcessInstance.start(emulator: emulator, store: store)
            let browser = CookieBrowser()
            do {
                let callback = try await browser.callbackURL(from: a.url) {
                    LoopbackBrowser.replacing("nonce", with: "a-nonce-the-bff-never-sent", in: $0)
                }
                let page = try await browser.get(callback)
                #expect(page.status == 400)
                #expect(page.text.contains("failed validation (nonce)"), "\(page.text)")
                #expect(browser.cookies["sessionkit"] == nil)
                #expect(try await Self.liveSessions(store, a) == 0)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await a.stop()
        }
    }
}

extension BFFInstance {
    var urlString: String { url.absoluteString }
}

extension CookieBrowser {
    func callbackURL(from instance: some BFFInstance) async throws -> URL { try await callbackURL(from: instance.url) }
    func signIn(through instance: some BFFInstance, returnTo: String? = nil) async throws -> Page {
        try await signIn(through: instance.url, returnTo: returnTo)
    }
}
