import AuthEmulator
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MetricsTestKit
import NIOCore
import NIOHTTP1
import SecureStore
import SessionKit
import SessionKitBFF
import SessionKitPostgres
import SessionKitServer
import SessionKitTesting
import Testing

/// What a stranger with no account can send: malformed requests on every route, a callback that once crashed
/// the process, and a flood of cookies that name no session. The instance under attack is a process of its own,
/// so that a crash shows as a dead process rather than a dead test runner.
@Suite("Attacks from outside", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct AttackTests {
    /// An emulator and one `sessionkit-bff` process for a fresh deployment, for `body`.
    static func withProcessInstance(_ body: (BFFPostgres.Deployment, ProcessInstance) async throws -> Void)
        async throws
    {
        try await LiveEmulator.with { emulator in
            let deployment = BFFPostgres.Deployment()
            let folder = try TemporaryFolder(prefix: "sessionkit-bff-attack")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: deployment, in: folder)
            let app = try await ProcessInstance.start(emulator: emulator, deployment: deployment, keyFile: keyFile)
            try await body(deployment, app)
        }
    }

    @Test("a callback with a malformed query (code=a%zz) is refused with 400, and the process lives on")
    func malformedCallback() async throws {
        try await Self.withProcessInstance { _, app in
            let browser = CookieBrowser()
            do {
                let start = try await browser.get(app.at("/auth/login"))
                #expect(start.status == 303)
                let authorize = try #require(start.location)
                let state = try #require(
                    URLComponents(url: authorize, resolvingAgainstBaseURL: false)?.queryItems?.first {
                        $0.name == "state"
                    }?.value)
                for query in ["code=a%zz&state=\(state)", "state=\(state)&code=%", "state=\(state)&code=%E0%A4%A"] {
                    let page = try await browser.get(URL(string: app.urlString + "/auth/callback?" + query)!)
                    #expect(page.status == 400, "\(query)")
                }
                #expect(app.isRunning, "the instance survived the malformed callbacks")
                #expect(try await browser.get(app.at("/auth/me")).status == 401)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await app.stop()
        }
    }

    @Test("malformed requests on every route: each is answered or closed, and the instance keeps serving")
    func malformedEveryRoute() async throws {
        try await Self.withProcessInstance { deployment, app in
            let port = try #require(app.url.port)
            let routes = [
                "/auth/login", "/auth/callback", "/auth/me", "/auth/logout", "/auth/backchannel-logout",
                "/api/userinfo",
                "/hello", "/",
            ]
            let garbage = [
                "?return_to=%zz", "?state=%&code=%zz", "/%zz", "/%00", "/%c0%ae%c0%ae/", "?%%%", "/..;/x", "/%252e",
                "?return_to=" + String(repeating: "%2F", count: 3000),
            ]
            let cookies = [
                "sessionkit=%zz", "sessionkit=" + String(repeating: "A", count: 5000), "sessionkit", "=;;;=",
                "sessionkit=\u{7F}", "sessionkit-signin-AAAA=!!!", "sessionkit=a; sessionkit=b",
            ]
            let store = try await deployment.store()
            let rowsBefore = try await store.keys().count
            var answered = 0
            for route in routes {
                for method in ["GET", "POST", "PUT", "DELETE"] {
                    for suffix in garbage {
                        let request =
                            "\(method) \(route)\(suffix) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-CSRF: 1\r\n"
                            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 15\r\n"
                            + "Connection: close\r\n\r\nlogout_token=%z"
                        if RawHTTP.send(request, port: port) != nil { answered += 1 }
                    }
                    for cookie in cookies {
                        let request =
                            "\(method) \(route) HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\nX-CSRF: 1\r\n"
                            + "Connection: close\r\n\r\n"
                        if RawHTTP.send(request, port: port) != nil { answered += 1 }
                    }
                }
                for line in [
                    "\(route) HTTP/1.1", "GET \(route) HTTP/9.9", "BREW \(route) HTTP/1.1", "GET \u{1}\(route)",
                ] {
                    _ = RawHTTP.send(line + "\r\nHost: x\r\n\r\n", port: port)
                }
            }
            #expect(app.isRunning, "the instance survived \(answered) malformed requests")
            #expect(answered > routes.count * 4 * garbage.count, "nearly every request was answered")
            let browser = CookieBrowser()
            #expect(try await browser.get(app.at("/auth/me")).status == 401, "it still serves")
            #expect(try await browser.signIn(through: app.url).status == 303, "and signs people in")
            await browser.shutdown()
            let rows = try await store.keys().count - rowsBefore
            #expect(
                (1...4).contains(rows),
                "only the real sign-in wrote rows (session, its sid and sub index, its spent sign-in state)")
            await app.stop()
        }
    }

    @Test("200 unknown cookies on logout, /api and /auth/me: no row, no statement, no cached session")
    func unknownCookieFlood() async throws {
        try await LiveEmulator.with { emulator in
            let metrics = TestMetrics()
            let store = try await BFFPostgres.Deployment().store(metrics: metrics)
            let instance = try await InProcessInstance.start(emulator: emulator, store: store)
            // The instance sweeps idle sessions as it starts, beside the server: count from after that sweep.
            let sweepBy = ContinuousClock.now + .seconds(10)
            while (try? metrics.expectTimer("sessionkit_store_call_duration", [("operation", "sweeping_idle_items")]))
                == nil, ContinuousClock.now < sweepBy
            {
                try await Task.sleep(for: .milliseconds(10))
            }
            let browser = CookieBrowser()
            let statements = store.statementCount
            for index in 0..<200 {
                // Well-formed session ids in cookies sealed with another key, and raw ids as the old BFF took them.
                let id = SessionID()
                let value =
                    index % 2 == 0
                    ? SealedCookies.session(id, secret: .init(size: .bits256)) : id.rawValue
                let headers = [("Cookie", "sessionkit=\(value)"), ("X-CSRF", "1")]
                let path = ["/auth/logout", "/api/userinfo", "/auth/me"][index % 3]
                let page = try await browser.send(
                    path == "/auth/logout" ? .POST : .GET, instance.at(path), headers: headers, cookies: false)
                #expect(page.status == (path == "/auth/logout" ? 200 : 401))
            }
            #expect(store.statementCount == statements, "not one statement for 200 cookies that name no session")
            #expect(try await store.keys().isEmpty, "no row written")
            #expect(instance.bff.sessions.cachedCount == 0, "no session cached")
            await browser.shutdown()
            await instance.stop()
        }
    }
}
