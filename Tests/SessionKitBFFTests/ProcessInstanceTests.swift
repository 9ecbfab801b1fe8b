import AuthEmulator
import Foundation
import NIOHTTP1
import SessionKit
import SessionKitPostgres
import SessionKitServer
import SessionKitTesting
import Testing

/// Two instances of the example program `sessionkit-bff` as separate processes, sharing one PostgreSQL and one
/// emulator: a browser signs in through A and uses the session on B; a logout on B ends it on A within a second;
/// tokens that expired are renewed once per user however many requests both instances forward at once.
@Suite("Two sessionkit-bff processes", .serialized, .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct ProcessInstanceTests {
    @Test("sign in through A, use the session on B; a forged logout is refused; logout on B → A answers 401 within 1 s")
    func signInOnALogoutOnB() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let folder = try TemporaryFolder(prefix: "sessionkit-bff")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: deployment, in: folder)
            let a = try await ProcessInstance.start(emulator: emulator, deployment: deployment, keyFile: keyFile)
            // Both instances sit behind one public URL (a load balancer's): here, A's.
            let b = try await ProcessInstance.start(
                emulator: emulator, deployment: deployment, keyFile: keyFile, publicURL: a.url)
            let browser = CookieBrowser()
            do {
                let landed = try await browser.signIn(through: a, returnTo: "/hello?from=test")
                #expect(landed.status == 303)
                #expect(landed.headers.first(name: "location") == "/hello?from=test")
                let cookie = try #require(landed.setCookies.first { $0.hasPrefix("sessionkit=") })
                #expect(
                    cookie.contains("; HttpOnly") && cookie.contains("; SameSite=Lax") && cookie.contains("; Path=/"))
                #expect(!cookie.contains("Secure"), "plain-http loopback public URL: no Secure")
                let id = try #require(browser.cookies["sessionkit"])
                #expect(
                    SealedCookies.id(fromCookie: id, secret: deployment.key) != nil,
                    "the cookie is the session id sealed with the deployment's key")

                // The session, used on B.
                let me = try await browser.get(b.at("/auth/me"))
                #expect(me.status == 200)
                #expect(me.json["signed_in"] as? Bool == true)
                #expect(me.json["email"] as? String == AuthEmulator.User.aliceEmail)
                #expect((me.json["sub"] as? String)?.isEmpty == false)
                #expect(me.json["expires_at"] is String)
                let userinfo = try await browser.get(b.at("/api/userinfo"), headers: [("X-CSRF", "1")])
                #expect(userinfo.status == 200)
                #expect(userinfo.json["email"] as? String == AuthEmulator.User.aliceEmail)
                let hello = try await browser.get(b.at("/hello"))
                #expect(hello.status == 200 && hello.text.hasPrefix("Hello, "), "\(hello.status) \(hello.text)")

                // A forged cross-site logout is refused, and the session goes on.
                let forged = try await browser.send(
                    .POST, b.at("/auth/logout"), headers: [("Origin", "https://evil.example")])
                #expect(forged.status == 403)
                #expect(try await browser.get(a.at("/auth/me")).status == 200)

                // Logout on B; A refuses the session within a second.
                let logout = try await browser.send(
                    .POST, b.at("/auth/logout"), headers: [("Origin", a.url.absoluteString)])
                #expect(logout.status == 200)
                #expect(logout.json["signed_in"] as? Bool == false)
                #expect(logout.setCookies.contains { $0.hasPrefix("sessionkit=;") && $0.contains("Max-Age=0") })
                let loggedOutAt = ContinuousClock.now
                var refusedOnA = false
                browser.setCookie("sessionkit", id)  // the old cookie, as a stolen copy would be
                while ContinuousClock.now - loggedOutAt < .seconds(1) {
                    // The BFF's own 401 (with `sign_in`), not the upstream's: the provider revoked the access token
                    // too, so a stale instance would forward it and pass the upstream's 401 through.
                    let answer = try await browser.get(a.at("/api/userinfo"), headers: [("X-CSRF", "1")])
                    if answer.status == 401, answer.json["sign_in"] != nil {
                        refusedOnA = true
                        break
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(refusedOnA, "A still served the session 1 s after the logout on B")
                let after = try await browser.get(a.at("/auth/me"))
                #expect(after.status == 401)
                #expect(after.json["sign_in"] as? String == "/auth/login")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await a.stop()
            await b.stop()
        }
    }

    @Test("tokens expired, both instances forward concurrently: exactly one refresh per user, every call answered")
    func renewalStorm() async throws {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let folder = try TemporaryFolder(prefix: "sessionkit-bff")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: deployment, in: folder)
            let users = 20
            let ids = try await ExpiredSessions.create(users, emulator: emulator, store: try await deployment.store())
            let a = try await ProcessInstance.start(emulator: emulator, deployment: deployment, keyFile: keyFile)
            let b = try await ProcessInstance.start(
                emulator: emulator, deployment: deployment, keyFile: keyFile, publicURL: a.url)
            try await emulator.controls.resetRequestCounts()
            let browser = CookieBrowser()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for id in ids {
                    for instance in [a, b, a, b] {
                        group.addTask {
                            try await browser.send(
                                .GET, instance.at("/api/userinfo"),
                                headers: SealedCookies.header(id, secret: deployment.key) + [("X-CSRF", "1")],
                                cookies: false
                            ).status
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == users * 4)
            #expect(statuses.allSatisfy { $0 == 200 }, "statuses: \(statuses.sorted())")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == users)
            await browser.shutdown()
            await a.stop()
            await b.stop()
        }
    }
}
