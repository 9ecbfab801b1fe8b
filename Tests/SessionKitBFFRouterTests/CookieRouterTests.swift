import AuthEmulator
import Crypto
import Foundation
import HTTPTypes
import SessionKitServer
import SessionKitTesting
import Testing

@testable import SessionKitBFF

/// The cookies (``SessionCookies``, ``CookieHeader``, ``CookieSealer``) through the router: their names and
/// attributes, sealing, and how many sign-in cookies a browser may hold.
@Suite("Router: cookies")
struct CookieRouterTests {
    @Test("over http: sessionkit, and sessionkit-signin-<id> per sign-in; HttpOnly, SameSite=Lax, Path=/, no Domain")
    func httpCookies() async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await RouterBFF.test(emulator: emulator) { app in
                let browser = app.browser()
                let start = try await browser.get("/auth/login")
                let binding = try #require(start.setCookies.first)
                #expect(binding.wholeMatch(of: /sessionkit-signin-[A-Za-z0-9_-]{12}=[A-Za-z0-9_-]+; .*/) != nil)
                #expect(binding.contains("; HttpOnly") && binding.contains("; Path=/"))
                #expect(binding.contains("; SameSite=Lax") && binding.contains("; Max-Age=600"))
                #expect(!binding.contains("Secure") && !binding.lowercased().contains("domain="))
                let landed = try await browser.signIn()
                #expect(landed.status == 303)
                let cookie = try #require(landed.setCookies.first { $0.hasPrefix("sessionkit=") })
                #expect(
                    cookie.contains("; HttpOnly") && cookie.contains("; SameSite=Lax") && cookie.contains("; Path=/"))
                #expect(!cookie.contains("Secure") && !cookie.lowercased().contains("domain="))
                #expect(!cookie.lowercased().contains("max-age"), "a browser-session cookie")
                #expect(landed.setCookies.contains { $0.hasPrefix("sessionkit-signin-") && $0.contains("Max-Age=0") })
                #expect(try await browser.get("/auth/me").status == 200)
            }
        }
    }

    @Test("an https public URL: __Host- cookies with Secure; Origin must be that URL's")
    func httpsCookies() async throws {
        let configuration = RouterBFF.emulatorConfiguration {
            $0.clients.append(
                AuthEmulator.Client(
                    id: "bff-https", name: "BFF over https", secret: "bff-https-test-secret-0123456789abcdef",
                    redirectURIs: ["https://app.example.test/auth/callback"]))
        }
        try await LiveEmulator.with(configuration) { emulator in
            try await RouterBFF.test(
                emulator: emulator, publicURL: URL(string: "https://app.example.test")!, clientID: "bff-https",
                clientSecret: "bff-https-test-secret-0123456789abcdef"
            ) { app in
                let browser = app.browser()
                let start = try await browser.get("/auth/login")
                let binding = try #require(start.setCookies.first)
                #expect(binding.hasPrefix("__Host-sessionkit-signin-"), "one sign-in cookie per sign-in under way")
                #expect(binding.contains("; Secure") && binding.contains("; HttpOnly") && binding.contains("; Path=/"))
                #expect(!binding.lowercased().contains("domain="))
                let landed = try await browser.signIn()
                #expect(landed.status == 303)
                let cookie = try #require(landed.setCookies.first { $0.hasPrefix("__Host-sessionkit=") })
                #expect(cookie.contains("; Path=/") && cookie.contains("; HttpOnly"))
                #expect(cookie.contains("; SameSite=Lax") && cookie.contains("; Secure"))
                #expect(!cookie.lowercased().contains("domain="))
                #expect(try await browser.get("/auth/me").status == 200)
                let unprefixed = try #require(browser.cookies["__Host-sessionkit"])
                let plain = try await browser.send(
                    .get, "/auth/me", headers: [("Cookie", "sessionkit=\(unprefixed)")], cookies: false)
                #expect(plain.status == 401, "over https the session cookie has its prefix, or is not one")
                // A loopback origin is not the public one.
                let wrongOrigin = try await browser.send(
                    .post, "/auth/logout", headers: [("Origin", "http://127.0.0.1:8080")])
                #expect(wrongOrigin.status == 403)
                let logout = try await browser.send(
                    .post, "/auth/logout", headers: [("Origin", "https://app.example.test")])
                #expect(logout.status == 200)
                #expect(try await browser.get("/auth/me").status == 401)
            }
        }
    }

    @Test("sealed: a changed byte, another key, another cookie's name or a bare id opens no session; never readable")
    func sealing() async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await RouterBFF.test(emulator: emulator) { app in
                let browser = app.browser()
                #expect(try await browser.signIn().status == 303)
                let value = try #require(browser.cookies["sessionkit"])
                let opened = try #require(CookieSealer(secret: app.cookieSecret).open(value, name: "sessionkit"))
                let id = try #require(SessionCookie(plaintext: opened, lifetime: 60, idleTimeout: 60)?.id)
                #expect(!value.contains(id.rawValue), "the browser cannot read the session id")
                let me = { (cookie: String) in
                    try await browser.send(.get, "/auth/me", headers: [("Cookie", cookie)], cookies: false)
                }
                #expect(try await me("sessionkit=\(value)").status == 200)
                #expect(try await me("sessionkit=\(app.sealedSession(id))").status == 200, "sealed here: opens")
                var changed = Array(value)
                changed[changed.count / 2] = changed[changed.count / 2] == "A" ? "B" : "A"
                let refusals = [
                    "sessionkit=\(String(changed))",
                    "sessionkit=\(app.sealedSession(id, secret: .init(size: .bits256)))",
                    "sessionkit=\(app.sealedSession(id, name: "sessionkit-signin-abc"))", "sessionkit=\(id.rawValue)",
                    "sessionkit=", "sessionkit", "sessionkit=" + String(repeating: "A", count: 5000),
                ]
                for cookie in refusals {
                    let page = try await me(cookie)
                    #expect(page.status == 401, "\(cookie.prefix(60))")
                }
                // The first cookie of the name decides (as Hummingbird's parser), across Cookie fields too.
                #expect(try await me("other=1; sessionkit=\(value)").status == 200)
                #expect(try await me("sessionkit=\(id.rawValue); sessionkit=\(value)").status == 401)
                let twoFields = try await browser.send(
                    .get, "/auth/me", headers: [("Cookie", "other=1"), ("Cookie", "sessionkit=\(value)")],
                    cookies: false)
                #expect(twoFields.status == 200)
                #expect(try await me("sessionkit=\(value)").status == 200, "and the session was never ended")
            }
        }
    }

    @Test("no session: 401 with sign_in and the cookie cleared; a made-up cookie: the same, and nothing stored")
    func withoutSession() async throws {
        try await RouterBFF.test { app in
            let browser = app.browser()
            let page = try await browser.get("/api/orders", headers: [("X-CSRF", "1")])
            #expect(page.status == 401)
            #expect(page.json["sign_in"] as? String == "/auth/login")
            let madeUp = try await browser.send(
                .get, "/api/orders", headers: [("Cookie", "sessionkit=not-a-session"), ("X-CSRF", "1")],
                cookies: false)
            #expect(madeUp.status == 401)
            #expect(madeUp.setCookies.contains { $0.hasPrefix("sessionkit=;") && $0.contains("Max-Age=0") })
            #expect(try await browser.get("/auth/me").status == 401)
            #expect(try app.storedItems() == 0)
        }
    }

    @Test("a browser keeps at most three sign-in cookies however many sign-ins it starts; the newest finishes")
    func signInCookiesBounded() async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await RouterBFF.test(emulator: emulator) { app in
                let browser = app.browser()
                let long = "/" + String(repeating: "x", count: 511)
                for round in 0..<30 {
                    let page = try await browser.get(ReturnPathRouterTests.login(returnTo: long))
                    #expect(page.status == 303, "round \(round): \(page.status)")
                    let pending = browser.cookies.keys.filter { $0.hasPrefix("sessionkit-signin-") }
                    #expect(pending.count <= 3, "round \(round): \(pending.count) sign-in cookies")
                    let header = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
                    #expect(header.utf8.count < 6_000, "round \(round): a Cookie header of \(header.utf8.count) bytes")
                }
                #expect(browser.cookies.keys.filter { $0.hasPrefix("sessionkit-signin-") }.count == 3)
                #expect(try await browser.get("/auth/me").status == 401, "the back end still answers")
                let landed = try await browser.get(try await browser.callback(returnTo: long))
                #expect(landed.status == 303 && landed.location == long)
            }
        }
    }

    @Test("two tabs signing in at once both finish; each has its own sign-in cookie")
    func twoTabs() async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await RouterBFF.test(emulator: emulator) { app in
                let browser = app.browser()
                let first = try await browser.callback()
                let second = try await browser.callback()
                #expect(browser.cookies.keys.filter { $0.hasPrefix("sessionkit-signin-") }.count == 2)
                #expect(try await browser.get(first).status == 303, "the first tab finishes")
                #expect(try await browser.get(second).status == 303, "and so does the second")
                #expect(try await browser.get("/auth/me").status == 200)
                #expect(browser.cookies.keys.filter { $0.hasPrefix("sessionkit-signin-") }.isEmpty)
            }
        }
    }

    @Test("a callback in a browser without its sign-in cookie is refused, and makes no session")
    func anotherBrowser() async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await RouterBFF.test(emulator: emulator) { app in
                let callback = try await app.browser().callback()
                let stranger = app.browser()
                let page = try await stranger.get(callback)
                #expect(page.status == 400)
                #expect(page.text.contains("another browser"))
                #expect(stranger.cookies["sessionkit"] == nil)
                #expect(try app.storedItems() == 0)
            }
        }
    }
}
