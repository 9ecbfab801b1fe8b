import AuthEmulator
import Foundation
import SessionKitTesting
import Testing

@testable import SessionKitBFF

/// What `/api/...` forwards (``ForwardedPath``): an allow-list of characters and escapes, no dot segments in any
/// encoding, and only paths under the mount.
@Suite("Router: the paths /api forwards")
struct ForwardedPathRouterTests {
    /// What the upstream should receive for `path` under `/api`: the rest, with a leading `/`.
    static func upstreamPath(_ path: String, mount: String = "/api") -> String {
        let rest = String(path.dropFirst(mount.count))
        return rest.isEmpty || rest.hasPrefix("?") ? "/" + rest : rest
    }

    @Test(
        "the path allow-list: dot segments in any encoding, ;, control bytes, overlong UTF-8 refused; plain paths pass",
        arguments: [
            ("/api/a/../../secret", false), ("/api/a/%2e%2e/secret", false), ("/api/a/..%2F..%2Fsecret", false),
            ("/api/a/..%5c..%5csecret", false), ("/api/a/..;/secret", false), ("/api/a/%252e%252e/secret", false),
            ("/api/a/%00", false), ("/api/a/%c0%ae%c0%ae/secret", false), ("/api/a/%zz", false),
            ("/api/a/b%2e%2ec/ok", true), ("/api/orders/7?sort=new&q=a%20b", true), ("/api/caf%C3%A9", true),
            ("/api/a/...", true), ("/api/a/.", false), ("/api/a/%2E", false), ("/api/a%3Bb", false),
            ("/api/" + String(repeating: "x", count: 8200), false),
        ])
    func allowList(path: String, forwarded: Bool) async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await EchoServer.with { upstream in
                try await RouterBFF.test(emulator: emulator, upstream: upstream.url) { app in
                    let browser = app.browser()
                    #expect(try await browser.signIn().status == 303)
                    let page = try await browser.get(path, headers: [("X-CSRF", "1")])
                    #expect((page.status == 200) == forwarded, "\(path.prefix(80)): \(page.status)")
                    if forwarded { #expect(page.json["path"] as? String == Self.upstreamPath(path)) }
                    // Refused by the allow-list (400), or before it by the router for bytes that are not UTF-8 (404).
                    if !forwarded { #expect(page.status == 400 || page.status == 404, "\(path.prefix(80))") }
                    if page.status == 400 { #expect(page.json["error"] as? String == "invalid_path") }
                }
            }
        }
    }

    @Test("a refused path is refused before the session is read: 400 with no cookie at all")
    func refusedFirst() async throws {
        try await RouterBFF.test { app in
            let page = try await app.browser().get("/api/a/%2e%2e/secret", headers: [("X-CSRF", "1")])
            #expect(page.status == 400 && page.json["error"] as? String == "invalid_path")
        }
    }

    @Test("only paths under the mount, with the prefix: /bff/api/... is forwarded, /api/... and /bff/apix are not")
    func prefix() async throws {
        let secret = "bff-prefix-test-secret-0123456789abcdef"
        let configuration = RouterBFF.emulatorConfiguration {
            $0.clients.append(
                AuthEmulator.Client(
                    id: "bff-prefix", name: "BFF under /bff", secret: secret,
                    redirectURIs: ["http://127.0.0.1:8080/bff/auth/callback"]))
        }
        let underPrefix: (inout BackendForFrontend.Configuration) -> Void = { $0.prefix = "/bff" }
        try await LiveEmulator.with(configuration) { emulator in
            try await EchoServer.with { upstream in
                try await RouterBFF.test(
                    emulator: emulator, upstream: upstream.url, clientID: "bff-prefix", clientSecret: secret,
                    configure: underPrefix
                ) { app in
                    let browser = app.browser()
                    #expect(try await browser.get(try await browser.callback(prefix: "/bff")).status == 303)
                    let csrf = [("X-CSRF", "1")]
                    let forwarded = try await browser.get("/bff/api/orders/7?x=1", headers: csrf)
                    #expect(forwarded.status == 200)
                    #expect(forwarded.json["path"] as? String == "/orders/7?x=1")
                    #expect(try await browser.get("/api/orders/7", headers: csrf).status == 404)
                    #expect(try await browser.get("/bff/apix/orders", headers: csrf).status == 404)
                    #expect(try await browser.get("/bff/auth/me").status == 200)
                }
            }
        }
    }

    @Test("ForwardedPath alone: the mount, the rest with a leading /, and refusals")
    func rule() {
        #expect(ForwardedPath.validated("/api/orders?x=1", under: "/api") == "/orders?x=1")
        #expect(ForwardedPath.validated("/api", under: "/api") == "/")
        #expect(ForwardedPath.validated("/api?x", under: "/api") == "/?x")
        #expect(ForwardedPath.validated("/apix", under: "/api") == nil, "another route's name")
        #expect(ForwardedPath.validated("/other/api", under: "/api") == nil)
        #expect(ForwardedPath.validated("/api/a%2Fb", under: "/api") == nil, "an encoded slash")
        #expect(ForwardedPath.validated("/api/a%5Cb", under: "/api") == nil, "an encoded backslash")
        #expect(ForwardedPath.validated("/api/%25", under: "/api") == nil, "an encoded percent sign")
        #expect(ForwardedPath.validated("/api/a%20b", under: "/api") == "/a%20b", "passed on as sent")
        #expect(ForwardedPath.validated("/api/a?b#c", under: "/api") == nil, "a fragment in the query")
        #expect(ForwardedPath.validated("/api/a?b c", under: "/api") == nil, "a space in the query")
        #expect(ForwardedPath.validated("/api/" + String(repeating: "a", count: 8188), under: "/api") == nil)
    }
}
