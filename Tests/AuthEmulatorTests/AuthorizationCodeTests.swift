import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Authorization code with PKCE")
struct AuthorizationCodeTests {
    static func testMode(_ configuration: inout AuthEmulator.Configuration) {
        configuration.autoSignInUser = AuthEmulator.User.aliceEmail
    }

    func exchange(_ h: Harness, code: String, verifier: String, redirect: String = Harness.callback) async throws
        -> HTTPResult
    {
        try await h.token([
            "grant_type": "authorization_code", "client_id": Harness.native, "code": code,
            "code_verifier": verifier, "redirect_uri": redirect,
        ])
    }

    @Test func testModeCompletesTheFlowWithoutAForm() async throws {
        try await Harness.with(.testing(Self.testMode)) { h in
            let pkce = Harness.pkce()
            let authorize = try await h.get(Harness.authorizePath(challenge: pkce.challenge, extra: ["nonce": "n-1"]))
            #expect(authorize.status == 302)
            #expect(authorize.location?.hasPrefix(Harness.callback + "?") == true)
            #expect(authorize.redirectQuery["state"] == "state-123")
            let code = try #require(authorize.redirectQuery["code"])
            let tokens = try await exchange(h, code: code, verifier: pkce.verifier)
            #expect(tokens.status == 200)
            #expect(tokens["token_type"] == "Bearer")
            #expect(tokens.json["expires_in"] == 86_400)
            #expect(tokens["scope"] == Harness.fullScope)
            #expect(tokens["refresh_token"] != nil)
            #expect(tokens.headers.first(name: "Cache-Control") == "no-store")
            let id = try await h.verify(try #require(tokens["id_token"]))
            #expect(id.kid != nil)
            #expect(id.claims["iss"]?.stringValue == h.issuer)
            #expect(id.claims["aud"]?.stringValue == Harness.native)
            #expect(id.claims["sub"]?.stringValue == AuthEmulator.User.aliceID)
            #expect(id.claims["nonce"] == "n-1")
            #expect(id.claims["auth_time"] != nil)
            #expect(id.claims["email"]?.stringValue == AuthEmulator.User.aliceEmail)
            #expect(id.claims["name"] == "Alice Example")
            let access = try await h.verify(try #require(tokens["access_token"]))
            #expect(access.claims["azp"]?.stringValue == Harness.native)
            #expect(access.claims["jti"] != nil)
        }
    }

    @Test func htmlFormSignsInAndSetsASession() async throws {
        try await Harness.with { h in
            let pkce = Harness.pkce()
            let path = Harness.authorizePath(challenge: pkce.challenge)
            let form = try await h.get(path)
            #expect(form.status == 200)
            #expect(form.text.contains("<form method=\"post\" action=\"/u/login\">"))
            #expect(form.text.contains("name=\"code_challenge\""))
            var fields = [
                "client_id": Harness.native, "redirect_uri": Harness.callback, "response_type": "code",
                "scope": Harness.fullScope, "state": "state-123", "code_challenge": pkce.challenge,
                "code_challenge_method": "S256", "username": AuthEmulator.User.bobEmail, "password": "wrong",
            ]
            let refused = try await h.postForm("u/login", fields)
            #expect(refused.status == 401)
            #expect(refused.text.contains("Wrong email or password."))
            fields["password"] = AuthEmulator.User.bobPassword
            let signedIn = try await h.postForm("u/login", fields)
            #expect(signedIn.status == 302)
            let cookie = try #require(signedIn.headers.first(name: "Set-Cookie")?.split(separator: ";").first)
            let tokens = try await exchange(
                h, code: try #require(signedIn.redirectQuery["code"]), verifier: pkce.verifier)
            let claims = try await h.verify(try #require(tokens["id_token"])).claims
            #expect(claims["sub"]?.stringValue == AuthEmulator.User.bobID)

            // The session cookie satisfies prompt=none; without it, login is required.
            let silent = Harness.authorizePath(challenge: pkce.challenge, extra: ["prompt": "none"])
            let withSession = try await h.get(silent, headers: [("Cookie", String(cookie))])
            #expect(withSession.redirectQuery["code"] != nil)
            let withoutSession = try await h.get(silent)
            #expect(withoutSession.redirectQuery["error"] == "login_required")
            #expect(withoutSession.redirectQuery["state"] == "state-123")
            // prompt=login forces the form even with a session.
            let forced = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge, extra: ["prompt": "login"]),
                headers: [("Cookie", String(cookie))]
            )
            #expect(forced.status == 200)
            #expect(forced.text.contains("Sign in"))
        }
    }

    @Test func maxAgeForcesReauthenticationOfAnOldSession() async throws {
        try await Harness.with { h in
            let pkce = Harness.pkce()
            let fields = [
                "client_id": Harness.native, "redirect_uri": Harness.callback, "response_type": "code",
                "code_challenge": pkce.challenge, "code_challenge_method": "S256",
                "username": AuthEmulator.User.aliceEmail, "password": AuthEmulator.User.alicePassword,
            ]
            let signedIn = try await h.postForm("u/login", fields)
            let cookie = String(try #require(signedIn.headers.first(name: "Set-Cookie")?.split(separator: ";").first))
            try await h.emulator.controls.advanceClock(by: 120)
            let fresh = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge, extra: ["max_age": "600"]),
                headers: [("Cookie", cookie)])
            #expect(fresh.status == 302)
            let stale = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge, extra: ["max_age": "60"]),
                headers: [("Cookie", cookie)])
            #expect(stale.status == 200, "an old session must see the form again")
            let staleSilent = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge, extra: ["max_age": "60", "prompt": "none"]),
                headers: [("Cookie", cookie)])
            #expect(staleSilent.redirectQuery["error"] == "login_required")
        }
    }

    @Test func wrongVerifierAndReusedCodeAreRefused() async throws {
        try await Harness.with(.testing(Self.testMode)) { h in
            let pkce = Harness.pkce()
            let code = try #require(
                try await h.get(Harness.authorizePath(challenge: pkce.challenge)).redirectQuery["code"])
            let wrong = try await exchange(h, code: code, verifier: Harness.pkce().verifier)
            #expect(wrong.status == 403)
            #expect(wrong["error"] == "invalid_grant")
            let missing = try await h.token([
                "grant_type": "authorization_code", "client_id": Harness.native, "code": code,
                "redirect_uri": Harness.callback,
            ])
            #expect(missing["error"] == "invalid_request")
            #expect(try await exchange(h, code: code, verifier: "short")["error"] == "invalid_grant")

            let second = try #require(
                try await h.get(Harness.authorizePath(challenge: pkce.challenge)).redirectQuery["code"])
            let first = try await exchange(h, code: second, verifier: pkce.verifier)
            #expect(first.status == 200)
            let reused = try await exchange(h, code: second, verifier: pkce.verifier)
            #expect(reused["error"] == "invalid_grant")
            // Reuse revokes what the code produced.
            let refreshed = try await h.refresh(try #require(first["refresh_token"]))
            #expect(refreshed["error"] == "invalid_grant")
        }
    }

    @Test func redirectURIMustMatchAtTheTokenEndpoint() async throws {
        try await Harness.with(.testing(Self.testMode)) { h in
            let pkce = Harness.pkce()
            let code = try #require(
                try await h.get(Harness.authorizePath(challenge: pkce.challenge)).redirectQuery["code"])
            let result = try await exchange(
                h, code: code, verifier: pkce.verifier, redirect: "com.example.app://callback")
            #expect(result["error"] == "invalid_grant")
        }
    }

    @Test func expiredCodeIsRefused() async throws {
        try await Harness.with(.testing(Self.testMode)) { h in
            let pkce = Harness.pkce()
            let code = try #require(
                try await h.get(Harness.authorizePath(challenge: pkce.challenge)).redirectQuery["code"])
            try await h.emulator.controls.advanceClock(by: 61)
            #expect(try await exchange(h, code: code, verifier: pkce.verifier)["error"] == "invalid_grant")
        }
    }

    @Test func badRedirectOrClientShowsAPageAndNeverRedirects() async throws {
        try await Harness.with(.testing(Self.testMode)) { h in
            let pkce = Harness.pkce()
            let evil = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge, extra: ["redirect_uri": "https://evil.example/cb"]))
            #expect(evil.status == 400)
            #expect(evil.location == nil)
            let unknown = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge, extra: ["client_id": "nobody"]))
            #expect(unknown.status == 400)
            #expect(unknown.location == nil)
            let otherPath = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge, extra: ["redirect_uri": "http://127.0.0.1:4000/other"])
            )
            #expect(otherPath.status == 400)
        }
    }

    @Test(arguments: ["http://127.0.0.1:53117/callback", "http://[::1]:8080/callback"])
    func loopbackRedirectsMatchOnAnyPort(redirect: String) async throws {
        try await Harness.with(
            .testing {
                Self.testMode(&$0)
                $0.clients[0].redirectURIs.append("http://[::1]/callback")
            }
        ) { h in
            let pkce = Harness.pkce()
            let result = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge, extra: ["redirect_uri": redirect]))
            #expect(result.status == 302)
            #expect(result.location?.hasPrefix(redirect + "?code=") == true)
            let tokens = try await exchange(
                h, code: try #require(result.redirectQuery["code"]), verifier: pkce.verifier, redirect: redirect)
            #expect(tokens.status == 200)
        }
    }

    @Test func plainPKCEAndMissingPKCEAndOtherResponseTypesAreRefused() async throws {
        try await Harness.with(.testing(Self.testMode)) { h in
            let pkce = Harness.pkce()
            let plain = try await h.get(
                Harness.authorizePath(challenge: pkce.verifier, extra: ["code_challenge_method": "plain"]))
            #expect(plain.redirectQuery["error"] == "invalid_request")
            let missing = try await h.get(Harness.authorizePath(challenge: "", extra: ["code_challenge_method": ""]))
            #expect(missing.redirectQuery["error"] == "invalid_request")
            let token = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge, extra: ["response_type": "token"]))
            #expect(token.redirectQuery["error"] == "unsupported_response_type")
        }
    }
}
