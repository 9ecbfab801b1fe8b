import AuthEmulator
import CoreMetrics
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

/// The forwarding route: the upstream gets the user's fresh token and never the browser's cookie; hop-by-hop
/// headers go neither way; bodies stream both ways; every call needs `X-CSRF: 1` (and the app's Origin if any);
/// and failures to renew are answered by what the front end should do.
@Suite("Forwarding to the upstream", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct ForwardingTests {
    /// An emulator, an echo upstream, one instance forwarding to it (its metrics to `metrics`, its configuration
    /// changed by `configure`), and a browser signed in through it.
    static func withSignedIn(
        metrics: (any MetricsFactory)? = nil,
        configure: (inout BackendForFrontend.Configuration) -> Void = { _ in },
        _ body: (AuthEmulator, EchoUpstream, InProcessInstance, CookieBrowser) async throws -> Void
    ) async throws {
        try await LiveEmulator.with { emulator in
            let upstream = try await EchoUpstream.start()
            let instance = try await InProcessInstance.start(
                emulator: emulator, store: try await BFFPostgres.Deployment().store(), upstream: upstream.url,
                metrics: metrics, configure: configure)
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance.url).status == 303)
                try await body(emulator, upstream, instance, browser)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
            await upstream.stop()
        }
    }

    @Test("the upstream gets Bearer <the session's token>, the path and query, and never the cookie or hop headers")
    func headersUpstream() async throws {
        try await Self.withSignedIn { _, _, instance, browser in
            let id = try #require(SealedCookies.id(fromCookie: browser.cookies["sessionkit"]))
            let token = try await instance.bff.sessions.credentials(for: id).accessToken.unsafeRawValue
            let page = try await browser.get(
                instance.at("/api/orders/7?sort=new&q=a%20b"),
                headers: [
                    ("Connection", "X-Private-Hop"), ("X-Private-Hop", "secret"), ("Keep-Alive", "timeout=9"),
                    ("Proxy-Authorization", "Basic abc"), ("Authorization", "Bearer the-browser-s-own"),
                    ("X-App", "kept"), ("X-CSRF", "1"),
                ])
            #expect(page.status == 200)
            let headers = try #require(page.json["headers"] as? [String: [String]])
            #expect(page.json["path"] as? String == "/orders/7?sort=new&q=a%20b")
            #expect(headers["authorization"] == ["Bearer \(token)"])
            #expect(headers["cookie"] == nil)
            #expect(headers["x-private-hop"] == nil)
            #expect(headers["keep-alive"] == nil)
            #expect(headers["proxy-authorization"] == nil)
            #expect(headers["x-app"] == ["kept"])
            #expect(!page.text.contains(id.rawValue), "the session id never reaches the upstream")
            // And back: the upstream's hop-by-hop headers and cookies stop at the BFF.
            #expect(page.headers.first(name: "X-Upstream") == "kept")
            #expect(page.headers.first(name: "X-Upstream-Hop") == nil)
            #expect(page.headers.first(name: "Keep-Alive") == nil)
            #expect(page.headers.first(name: "Set-Cookie") == nil)
            #expect(browser.cookies["upstream"] == nil)
            // Hardened for the app's origin: no CORS grant, no shared caching, no sniffing, HTML sandboxed.
            #expect(page.headers.first(name: "Access-Control-Allow-Origin") == nil)
            #expect(
                page.headers[canonicalForm: "Cache-Control"].map(String.init) == ["private", "no-store"], "only ours")
            #expect(page.headers.first(name: "X-Content-Type-Options") == "nosniff")
            #expect(page.headers.first(name: "Content-Security-Policy")?.hasPrefix("sandbox;") == true)
        }
    }

    @Test("a 4 MiB body streams to the upstream, and a 6 MiB answer of unknown length streams back")
    func streamingBodies() async throws {
        try await Self.withSignedIn { _, upstream, instance, browser in
            var generator = SystemRandomNumberGenerator()
            let body = Data((0..<(4 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
            let page = try await browser.send(
                .PUT, instance.at("/api/upload"),
                headers: [("X-CSRF", "1"), ("Content-Type", "application/octet-stream")],
                body: body)
            #expect(page.status == 200)
            #expect(page.json["size"] as? Int == body.count)
            #expect(page.json["sha256"] as? String == digest)
            _ = upstream
            let download = try await browser.get(instance.at("/api/bytes/\(6 << 20)"), headers: [("X-CSRF", "1")])
            #expect(download.status == 200)
            #expect(download.body.count == 6 << 20)
            #expect(download.body.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
        }
    }

    @Test("every call needs X-CSRF: 1 and no foreign Origin or cross-site fetch metadata; forwarded otherwise")
    func forgery() async throws {
        try await Self.withSignedIn { _, _, instance, browser in
            let post = { (headers: [(String, String)]) in
                try await browser.send(.POST, instance.at("/api/orders"), headers: headers, body: Data("{}".utf8))
                    .status
            }
            #expect(try await post([("Origin", "https://evil.example")]) == 403)
            #expect(try await post([("Origin", "https://evil.example"), ("X-CSRF", "1")]) == 403)
            #expect(try await post([]) == 403)
            #expect(try await post([("Sec-Fetch-Site", "cross-site"), ("X-CSRF", "1")]) == 403)
            #expect(try await post([("X-CSRF", "0")]) == 403)
            #expect(try await post([("Origin", instance.url.absoluteString)]) == 403, "the header is needed too")
            #expect(try await post([("Origin", instance.url.absoluteString), ("X-CSRF", "1")]) == 200)
            #expect(try await post([("X-CSRF", "1")]) == 200)
            for method in [HTTPMethod.DELETE, .PUT, .PATCH] {
                #expect(try await browser.send(method, instance.at("/api/orders/1")).status == 403)
            }
            let refused = try await browser.send(.DELETE, instance.at("/api/orders/1"))
            #expect(refused.json["error"] as? String == "cross_site_request_refused")
            // Every method needs the header, GET included (a link or a navigation from another site carries the
            // SameSite=Lax cookie, but never a custom header).
            #expect(try await browser.get(instance.at("/api/orders")).status == 403, "GET without X-CSRF")
            #expect(try await browser.get(instance.at("/api/orders"), headers: [("X-CSRF", "1")]).status == 200)
            let navigation = try await browser.get(
                instance.at("/api/orders"), headers: [("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Mode", "navigate")])
            #expect(navigation.status == 403, "a link on another site gets nothing")
        }
    }

    @Test("no session: 401 with sign_in; a malformed cookie: 401; dot segments, encoded slashes: 400")
    func withoutSession() async throws {
        try await Self.withSignedIn { _, _, instance, browser in
            let anonymous = CookieBrowser()
            let page = try await anonymous.get(instance.at("/api/orders"), headers: [("X-CSRF", "1")])
            #expect(page.status == 401)
            #expect(page.json["sign_in"] as? String == "/auth/login")
            let malformed = try await anonymous.send(
                .GET, instance.at("/api/orders"), headers: [("Cookie", "sessionkit=not-a-session"), ("X-CSRF", "1")],
                cookies: false)
            #expect(malformed.status == 401)
            await anonymous.shutdown()
            #expect(try await browser.get(instance.at("/api/a/../../secret"), headers: [("X-CSRF", "1")]).status == 400)
            #expect(
                try await browser.get(instance.at("/api/a/%2e%2e/secret"), headers: [("X-CSRF", "1")]).status == 400)
            #expect(
                try await browser.get(instance.at("/api/a/..%2F..%2Fsecret"), headers: [("X-CSRF", "1")]).status == 400)
            #expect(
                try await browser.get(instance.at("/api/a/..%5c..%5csecret"), headers: [("X-CSRF", "1")]).status == 400)
            #expect(try await browser.get(instance.at("/api/a/b%2e%2ec/ok"), headers: [("X-CSRF", "1")]).status != 400)
        }
    }
}
