import AuthEmulator
import Foundation
import HTTPTypes
import SessionKitBFF
import SessionKitTesting
import Testing

/// Requests from other sites (``RequestForgeryCheck``) through the router: the back end's own state-changing
/// routes need the app's Origin or the anti-forgery header, every `/api/...` call the header, and nothing marked
/// cross-site passes.
@Suite("Router: requests from other sites")
struct ForgeryRouterTests {
    @Test("POST /auth/logout: the app's Origin, or no Origin and X-CSRF: 1; anything cross-site is refused")
    func logout() async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await RouterBFF.test(emulator: emulator) { app in
                let browser = app.browser()
                #expect(try await browser.signIn().status == 303)
                let post = { (headers: [(String, String)]) in
                    try await browser.send(.post, "/auth/logout", headers: headers).status
                }
                #expect(try await post([("Origin", "https://evil.example")]) == 403)
                #expect(try await post([("Origin", "https://evil.example"), ("X-CSRF", "1")]) == 403)
                #expect(try await post([]) == 403)
                #expect(try await post([("X-CSRF", "0")]) == 403)
                #expect(try await post([("Sec-Fetch-Site", "cross-site"), ("X-CSRF", "1")]) == 403)
                #expect(try await post([("Sec-Fetch-Site", "Cross-Site"), ("Origin", "http://127.0.0.1:8080")]) == 403)
                #expect(try await post([("Origin", "http://127.0.0.1:8081")]) == 403, "another port, another origin")
                #expect(try await post([("Origin", "https://127.0.0.1:8080")]) == 403, "another scheme too")
                let refused = try await browser.send(.post, "/auth/logout")
                #expect(refused.json["error"] as? String == "cross_site_request_refused")
                #expect(try await browser.get("/auth/me").status == 200, "no refused logout ended the session")
                #expect(try await post([("Origin", "HTTP://127.0.0.1:8080")]) == 200, "an origin's case is no matter")
                #expect(try await browser.get("/auth/me").status == 401, "the allowed one did")
                #expect(try await post([("X-CSRF", "1")]) == 200)
                #expect(try await post([("Sec-Fetch-Site", "same-origin"), ("X-CSRF", "1")]) == 200)
            }
        }
    }

    @Test("every /api call needs X-CSRF: 1 and no foreign Origin or cross-site fetch metadata; forwarded otherwise")
    func api() async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await EchoServer.with { upstream in
                try await RouterBFF.test(emulator: emulator, upstream: upstream.url) { app in
                    let browser = app.browser()
                    #expect(try await browser.signIn().status == 303)
                    let post = { (headers: [(String, String)]) in
                        try await browser.send(.post, "/api/orders", headers: headers, body: Data("{}".utf8)).status
                    }
                    #expect(try await post([("Origin", "https://evil.example")]) == 403)
                    #expect(try await post([("Origin", "https://evil.example"), ("X-CSRF", "1")]) == 403)
                    #expect(try await post([]) == 403)
                    #expect(try await post([("Sec-Fetch-Site", "cross-site"), ("X-CSRF", "1")]) == 403)
                    #expect(try await post([("X-CSRF", "0")]) == 403)
                    #expect(try await post([("Origin", "http://127.0.0.1:8080")]) == 403, "the header is needed too")
                    #expect(try await post([("Origin", "http://127.0.0.1:8080"), ("X-CSRF", "1")]) == 200)
                    #expect(try await post([("X-CSRF", "1")]) == 200)
                    for method in [HTTPRequest.Method.delete, .put, .patch] {
                        #expect(try await browser.send(method, "/api/orders/1").status == 403, "\(method)")
                    }
                    let refused = try await browser.send(.delete, "/api/orders/1")
                    #expect(refused.json["error"] as? String == "cross_site_request_refused")
                    // Every method needs the header, GET included (a link or a navigation from another site carries
                    // the SameSite=Lax cookie, but never a custom header).
                    #expect(try await browser.get("/api/orders").status == 403, "GET without X-CSRF")
                    let forwarded = try await browser.get("/api/orders", headers: [("X-CSRF", "1")])
                    #expect(forwarded.status == 200)
                    #expect(forwarded.json["x-csrf"] as? String == "", "the header stops at the back end")
                    #expect((forwarded.json["authorization"] as? String)?.hasPrefix("Bearer ") == true)
                    let navigation = try await browser.get(
                        "/api/orders", headers: [("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Mode", "navigate")])
                    #expect(navigation.status == 403, "a link on another site gets nothing")
                }
            }
        }
    }

    @Test("a configured anti-forgery header replaces X-CSRF on the API and on logout")
    func configuredHeader() async throws {
        let configure: (inout BackendForFrontend.Configuration) -> Void = {
            $0.antiForgeryHeader = "X-Requested-By"
            $0.providerLogout = false
        }
        try await RouterBFF.test(configure: configure) { app in
            let browser = app.browser()
            #expect(try await browser.get("/api/orders", headers: [("X-CSRF", "1")]).status == 403)
            let passed = try await browser.get("/api/orders", headers: [("X-Requested-By", "1")])
            #expect(passed.status == 401, "past the check, and then no session")
            #expect(passed.json["sign_in"] as? String == "/auth/login")
            #expect(try await browser.send(.post, "/auth/logout", headers: [("X-CSRF", "1")]).status == 403)
            #expect(try await browser.send(.post, "/auth/logout", headers: [("X-Requested-By", "1")]).status == 200)
        }
    }
}
