import AuthEmulator
import Foundation
import HTTPTypes
import SessionKitServer
import SessionKitTesting
import Testing

@testable import SessionKitBFF

/// The profile routes' rules through the router (`GET /auth/profile`, `PATCH /auth/profile/metadata`), against the
/// emulator's Management API on loopback: a session required, forgery checked, the allow-list enforced, the back
/// end's own client-credentials token used, and a Management API that fails keeps the session.
@Suite("Router: profile")
struct ProfileRouterTests {
    static func withProfile(
        _ body: @Sendable (AuthEmulator, RouterBFF) async throws -> Void
    ) async throws {
        try await LiveEmulator.with(RouterBFF.emulatorConfiguration()) { emulator in
            try await RouterBFF.test(
                emulator: emulator, configure: { $0.profile = .init(editableMetadataKeys: ["theme", "language"]) }
            ) { app in try await body(emulator, app) }
        }
    }

    static let json = ("Content-Type", "application/json")
    static let csrf = ("X-CSRF", "1")

    @Test("no session: 401 on both routes; signed in: the user's profile, read with one client-credentials token")
    func readsTheProfile() async throws {
        try await Self.withProfile { emulator, app in
            let browser = app.browser()
            let anonymous = try await browser.get("/auth/profile")
            #expect(anonymous.status == 401)
            #expect(anonymous.json["error"] as? String == "sign_in_required")
            let patch = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [Self.json, Self.csrf], body: Data(#"{"theme":"x"}"#.utf8))
            #expect(patch.status == 401)

            #expect(try await browser.signIn().status == 303)
            try await emulator.controls.resetRequestCounts()
            let page = try await browser.get("/auth/profile")
            #expect(page.status == 200, "\(page.text)")
            #expect(page.json["sub"] as? String == AuthEmulator.User.aliceID)
            #expect(page.json["email"] as? String == AuthEmulator.User.aliceEmail)
            let metadata = try #require(page.json["user_metadata"] as? [String: Any])
            #expect(metadata["theme"] as? String == "dark")
            #expect(page.json["editable_metadata_keys"] as? [String] == ["language", "theme"])
            #expect(page.json["app_metadata"] == nil, "app_metadata is not the front end's")
            #expect(try await browser.get("/auth/profile").status == 200)
            let counts = try await emulator.controls.requestCounts()
            #expect(counts[AuthEmulator.GrantType.clientCredentials] == 1, "one token for both reads")
            #expect(counts[AuthEmulator.Endpoint.management] == 2)
            #expect(!page.text.contains("eyJ"), "no token in the answer")
        }
    }

    @Test("PATCH is checked for forgery as logout is")
    func forgery() async throws {
        try await Self.withProfile { _, app in
            let browser = app.browser()
            #expect(try await browser.signIn().status == 303)
            let body = Data(#"{"theme":"light"}"#.utf8)
            let bare = try await browser.send(.patch, "/auth/profile/metadata", headers: [Self.json], body: body)
            #expect(bare.status == 403)
            #expect(bare.json["error"] as? String == "cross_site_request_refused")
            let crossOrigin = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [Self.json, Self.csrf, ("Origin", "https://evil.example")],
                body: body)
            #expect(crossOrigin.status == 403)
            let crossSite = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [Self.json, Self.csrf, ("Sec-Fetch-Site", "cross-site")],
                body: body)
            #expect(crossSite.status == 403)
            #expect(try await browser.get("/auth/profile").json["user_metadata"].flatMap(theme) == "dark")

            let sameOrigin = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [Self.json, ("Origin", "http://127.0.0.1:8080")],
                body: body)
            #expect(sameOrigin.status == 200, "\(sameOrigin.text)")
            #expect(sameOrigin.json["user_metadata"].flatMap(theme) == "light")
            let header = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [Self.json, Self.csrf], body: Data(#"{"theme":null}"#.utf8))
            #expect(header.status == 200)
            #expect(header.json["user_metadata"].flatMap(theme) == nil, "null deletes the key")
        }
    }

    @Test("PATCH accepts only allowed keys of a JSON object, and changes nothing otherwise")
    func allowList() async throws {
        try await Self.withProfile { _, app in
            let browser = app.browser()
            #expect(try await browser.signIn().status == 303)
            let refused = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [Self.json, Self.csrf],
                body: Data(#"{"theme":"light","role":"admin"}"#.utf8))
            #expect(refused.status == 400)
            #expect(refused.json["error"] as? String == "metadata_key_not_allowed")
            let message = try #require(refused.json["message"] as? String)
            #expect(message.contains("role") && message.contains("language, theme"))
            #expect(try await browser.get("/auth/profile").json["user_metadata"].flatMap(theme) == "dark")

            let array = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [Self.json, Self.csrf], body: Data("[1]".utf8))
            #expect(array.status == 400)
            #expect(array.json["error"] as? String == "invalid_metadata")
            let form = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [("Content-Type", "text/plain"), Self.csrf],
                body: Data(#"{"theme":"light"}"#.utf8))
            #expect(form.status == 415)
            let huge = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [Self.json, Self.csrf],
                body: Data(("{\"theme\":\"" + String(repeating: "a", count: 20_000) + "\"}").utf8))
            #expect(huge.status == 413)
            let allowed = try await browser.send(
                .patch, "/auth/profile/metadata", headers: [Self.json, Self.csrf],
                body: Data(#"{"language":"fr"}"#.utf8))
            #expect(allowed.status == 200)
            let metadata = try #require(allowed.json["user_metadata"] as? [String: Any])
            #expect(metadata["language"] as? String == "fr" && metadata["theme"] as? String == "dark")
        }
    }

    @Test("a Management API 5xx, a dropped connection or a failed token request: 503, the session and cookie kept")
    func failuresKeepTheSession() async throws {
        try await Self.withProfile { emulator, app in
            let browser = app.browser()
            #expect(try await browser.signIn().status == 303)
            let cookie = try #require(browser.cookies["sessionkit"])
            // The token request first: once the back end holds a token, it asks for none.
            let faults: [(AuthEmulator.Fault, AuthEmulator.Endpoint)] = [
                (AuthEmulator.Fault(action: .status, status: 500, grantType: .clientCredentials), .token),
                (.status(503), .management), (.dropConnection, .management),
            ]
            for (fault, endpoint) in faults {
                try await emulator.controls.inject(fault, into: endpoint)
                let read = try await browser.get("/auth/profile")
                #expect(read.status == 503, "\(fault.action) at \(endpoint): \(read.text)")
                #expect(read.json["error"] as? String == "profile_unavailable")
                #expect(read.headers[.retryAfter] != nil)
                #expect(read.setCookies.isEmpty, "the session cookie is left alone")
                let write = try await browser.send(
                    .patch, "/auth/profile/metadata", headers: [Self.json, Self.csrf],
                    body: Data(#"{"theme":"light"}"#.utf8))
                #expect(write.status == 503)
                #expect(write.setCookies.isEmpty)
                try await emulator.controls.clearFaults()
                #expect(browser.cookies["sessionkit"] == cookie)
                #expect(try await browser.get("/auth/me").status == 200, "the session lives on")
                #expect(try await browser.get("/auth/profile").status == 200)
            }
        }
    }

    @Test("a token the Management API refuses (401) is replaced once, and the read succeeds")
    func refusedTokenReplaced() async throws {
        try await Self.withProfile { emulator, app in
            let browser = app.browser()
            #expect(try await browser.signIn().status == 303)
            #expect(try await browser.get("/auth/profile").status == 200)
            try await emulator.controls.resetRequestCounts()
            try await emulator.controls.inject(
                AuthEmulator.Fault(action: .status, status: 401, count: 1), into: .management)
            let page = try await browser.get("/auth/profile")
            #expect(page.status == 200, "\(page.text)")
            let counts = try await emulator.controls.requestCounts()
            #expect(counts[AuthEmulator.GrantType.clientCredentials] == 1, "a new token after the refusal")
            #expect(counts[AuthEmulator.Endpoint.management] == 2)
            try await emulator.controls.inject(.status(401), into: .management)
            let refused = try await browser.get("/auth/profile")
            #expect(refused.status == 500, "refused again with a new token: the configuration's to fix")
            #expect(refused.json["error"] as? String == "profile_not_configured")
            #expect(refused.setCookies.isEmpty)
        }
    }

    @Test("a client without a client grant on the Management API: 500 that says so, the session kept")
    func missingClientGrant() async throws {
        let configuration = RouterBFF.emulatorConfiguration {
            $0.clients = $0.clients.map { client in
                var client = client
                client.clientGrants = []
                return client
            }
        }
        try await LiveEmulator.with(configuration) { emulator in
            try await RouterBFF.test(emulator: emulator, configure: { $0.profile = .init(editableMetadataKeys: []) }) {
                app in
                let browser = app.browser()
                #expect(try await browser.signIn().status == 303)
                let read = try await browser.get("/auth/profile")
                #expect(read.status == 500)
                #expect(read.json["error"] as? String == "profile_not_configured")
                #expect((read.json["message"] as? String)?.contains("client grant") == true)
                #expect(read.setCookies.isEmpty)
                #expect(try await browser.get("/auth/me").status == 200)
            }
        }
    }

    @Test("without a profile configuration the routes do not exist")
    func off() async throws {
        try await RouterBFF.test { app in
            let page = try await app.browser().get("/auth/profile")
            #expect(page.status == 404)
        }
    }

    private func theme(_ metadata: Any) -> String? { (metadata as? [String: Any])?["theme"] as? String }
}
