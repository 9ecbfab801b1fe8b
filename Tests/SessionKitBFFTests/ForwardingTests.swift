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
import SessionKitSupport
import SessionKitTesting
import Testing

/// The forwarding route: the upstream gets the user's fresh token and never the browser's cookie; hop-by-hop
/// headers go neither way; bodies stream both ways. The anti-forgery rules and the paths forwarded are in
/// SessionKitBFFRouterTests.
@Suite("Forwarding to the upstream", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct ForwardingTests {
    /// An emulator, an echo upstream, one instance forwarding to it (its metrics to `metrics`, its configuration
    /// changed by `configure`), and a browser signed in through it.
    static func withSignedIn(
        metrics: (any MetricsFactory)? = nil, routed: RoutedRequests? = nil,
        configure: (inout BackendForFrontend.Configuration) -> Void = { _ in },
        _ body: (AuthEmulator, EchoUpstream, InProcessInstance, CookieBrowser) async throws -> Void
    ) async throws {
        try await LiveEmulator.with { emulator in
            let upstream = try await EchoUpstream.start()
            let instance = try await InProcessInstance.start(
                emulator: emulator, store: try await BFFPostgres.Deployment().store(), upstream: upstream.url,
                metrics: metrics, routed: routed, configure: configure)
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

    @Test(
        "the upstream gets Bearer <the session's token>, the path and query, and never the cookie or hop headers",
        arguments: [true, false])
    func headersUpstream(onEventLoop: Bool) async throws {
        let path: (inout BackendForFrontend.Configuration) -> Void = { $0.forwardsOnEventLoop = onEventLoop }
        try await Self.withSignedIn(configure: path) { _, _, instance, browser in
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

    @Test(
        "a 4 MiB body streams to the upstream, and a 6 MiB answer of unknown length streams back",
        arguments: [true, false])
    func streamingBodies(onEventLoop: Bool) async throws {
        let path: (inout BackendForFrontend.Configuration) -> Void = { $0.forwardsOnEventLoop = onEventLoop }
        try await Self.withSignedIn(configure: path) { _, upstream, instance, browser in
            var generator = SystemRandomNumberGenerator()
            let body = Data((0..<(4 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let digest = Hex.string(SHA256.hash(data: body))
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
}
