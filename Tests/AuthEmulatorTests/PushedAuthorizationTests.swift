import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

/// `POST /oauth/par` and `/authorize?request_uri=` (RFC 9126): client authentication, one-use short-lived
/// `request_uri`s, refusals and the per-client "PAR required" switch, over HTTP.
@Suite("Pushed authorization requests")
struct PushedAuthorizationTests {
    static let autoSignIn = AuthEmulator.Configuration.testing { $0.autoSignInUser = AuthEmulator.User.aliceEmail }

    /// The native client's authorization parameters with PKCE.
    static func parameters(challenge: String, extra: [String: String] = [:]) -> [String: String] {
        var parameters = [
            "client_id": Harness.native, "redirect_uri": Harness.callback, "response_type": "code",
            "scope": Harness.fullScope, "state": "state-par", "nonce": "nonce-par", "code_challenge": challenge,
            "code_challenge_method": "S256",
        ]
        parameters.merge(extra) { _, new in new }
        return parameters
    }

    static func authorize(_ requestURI: String, client: String = Harness.native) -> String {
        "authorize?" + Form.encode(["client_id": client, "request_uri": requestURI])
    }

    @Test("a push answers 201 with a one-use request_uri; /authorize reads the pushed parameters; the code works")
    func pushedSignIn() async throws {
        try await Harness.with(Self.autoSignIn) { h in
            let discovery = try await h.get(".well-known/openid-configuration")
            #expect(discovery["pushed_authorization_request_endpoint"] == h.issuer + "oauth/par")
            #expect(discovery.json["require_pushed_authorization_requests"] == false)
            let pkce = Harness.pkce()
            let pushed = try await h.postForm("oauth/par", Self.parameters(challenge: pkce.challenge))
            #expect(pushed.status == 201, "\(pushed.text)")
            #expect(pushed.json["expires_in"] == 60)
            #expect(pushed.headers.first(name: "Cache-Control") == "no-store")
            let requestURI = try #require(pushed["request_uri"])
            #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
            let authorize = try await h.get(Self.authorize(requestURI))
            #expect(authorize.status == 302)
            #expect(authorize.location?.hasPrefix(Harness.callback + "?") == true)
            #expect(authorize.redirectQuery["state"] == "state-par")
            let code = try #require(authorize.redirectQuery["code"])
            let tokens = try await h.token([
                "grant_type": "authorization_code", "client_id": Harness.native, "code": code,
                "code_verifier": pkce.verifier, "redirect_uri": Harness.callback,
            ])
            #expect(tokens.status == 200, "\(tokens.text)")
            let id = try await h.verify(try #require(tokens["id_token"]))
            #expect(id.claims["nonce"] == "nonce-par")

            let again = try await h.get(Self.authorize(requestURI))
            #expect(again.status == 302)
            #expect(again.redirectQuery["error"] == "invalid_request_uri")
            #expect(again.redirectQuery["error_description"]?.contains("used already") == true)
            #expect(again.redirectQuery["state"] == "state-par")
            #expect(again.redirectQuery["code"] == nil)
            let counts = try await h.emulator.controls.requestCounts()
            #expect(counts[.pushedAuthorization] == 1)
        }
    }

    @Test("an expired request_uri is refused (invalid_request_uri) at the pushed redirect URI; the lifetime is set")
    func expiry() async throws {
        let configuration = AuthEmulator.Configuration.testing {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            $0.lifetimes.pushedRequest = 30
        }
        try await Harness.with(configuration) { h in
            let pushed = try await h.postForm("oauth/par", Self.parameters(challenge: Harness.pkce().challenge))
            #expect(pushed.json["expires_in"] == 30)
            let requestURI = try #require(pushed["request_uri"])
            try await h.emulator.controls.advanceClock(by: 31)
            let authorize = try await h.get(Self.authorize(requestURI))
            #expect(authorize.status == 302)
            #expect(authorize.location?.hasPrefix(Harness.callback + "?") == true)
            #expect(authorize.redirectQuery["error"] == "invalid_request_uri")
            #expect(authorize.redirectQuery["error_description"]?.contains("expired") == true)
            #expect(authorize.redirectQuery["code"] == nil)
        }
    }

    @Test("an unknown request_uri, or another client's, is shown on a page and never redirected")
    func unknownOrOtherClient() async throws {
        try await Harness.with(Self.autoSignIn) { h in
            let unknown = try await h.get(Self.authorize("urn:ietf:params:oauth:request_uri:nothing"))
            #expect(unknown.status == 400)
            #expect(unknown.location == nil)
            #expect(unknown.text.contains("invalid_request_uri"))
            let pushed = try await h.postForm("oauth/par", Self.parameters(challenge: Harness.pkce().challenge))
            let requestURI = try #require(pushed["request_uri"])
            let other = try await h.get(Self.authorize(requestURI, client: AuthEmulator.Client.confidentialID))
            #expect(other.status == 400)
            #expect(other.location == nil)
            #expect(other.text.contains("another client"))
            // Refused for the other client, it still works once for its own.
            #expect(try await h.get(Self.authorize(requestURI)).redirectQuery["code"] != nil)
        }
    }

    @Test("the push authenticates a confidential client as the token endpoint does, and checks the parameters")
    func refusals() async throws {
        try await Harness.with(Self.autoSignIn) { h in
            let challenge = Harness.pkce().challenge
            var confidential = Self.parameters(challenge: challenge)
            confidential["client_id"] = AuthEmulator.Client.confidentialID
            let noSecret = try await h.postForm("oauth/par", confidential)
            #expect(noSecret.status == 401)
            #expect(noSecret["error"] == "invalid_client")
            confidential["client_secret"] = "wrong"
            let wrongSecret = try await h.postForm("oauth/par", confidential)
            #expect(wrongSecret["error"] == "invalid_client")
            confidential["client_secret"] = AuthEmulator.Client.confidentialSecret
            let accepted = try await h.postForm("oauth/par", confidential)
            #expect(accepted.status == 201, "\(accepted.text)")

            let badRedirect = try await h.postForm(
                "oauth/par", Self.parameters(challenge: challenge, extra: ["redirect_uri": "https://evil.example/cb"]))
            #expect(badRedirect.status == 400)
            #expect(badRedirect["error"] == "invalid_request")
            let badType = try await h.postForm(
                "oauth/par", Self.parameters(challenge: challenge, extra: ["response_type": "token"]))
            #expect(badType.status == 400)
            #expect(badType["error"] == "unsupported_response_type")
            let badAudience = try await h.postForm(
                "oauth/par", Self.parameters(challenge: challenge, extra: ["audience": "https://unknown.example/"]))
            #expect(badAudience.status == 403)
            #expect(badAudience["error"] == "access_denied", "refused as Auth0 refuses an unknown API")
            let nested = try await h.postForm(
                "oauth/par",
                Self.parameters(challenge: challenge, extra: ["request_uri": "urn:ietf:params:oauth:request_uri:x"]))
            #expect(nested["error"] == "invalid_request")
        }
    }

    @Test("a client that must push: /authorize without a request_uri is refused; discovery says so; the switch")
    func required() async throws {
        let configuration = AuthEmulator.Configuration.testing {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            $0.clients[0].requiresPushedAuthorizationRequests = true
        }
        try await Harness.with(configuration) { h in
            #expect(configuration.clients[0].id == Harness.native)
            #expect(h.emulator.summary.contains("\(Harness.native) (public) [pushed authorization requests required]"))
            let discovery = try await h.get(".well-known/openid-configuration")
            #expect(discovery.json["require_pushed_authorization_requests"] == true)
            let challenge = Harness.pkce().challenge
            let plain = try await h.get(Harness.authorizePath(challenge: challenge))
            #expect(plain.status == 302)
            #expect(plain.redirectQuery["error"] == "invalid_request")
            #expect(plain.redirectQuery["error_description"]?.contains("/oauth/par") == true)
            #expect(plain.redirectQuery["code"] == nil)
            let pushed = try await h.postForm("oauth/par", Self.parameters(challenge: challenge))
            let requestURI = try #require(pushed["request_uri"])
            #expect(try await h.get(Self.authorize(requestURI)).redirectQuery["code"] != nil)

            try await h.emulator.controls.setPushedAuthorizationRequired(false, forClient: Harness.native)
            #expect(try await h.get(Harness.authorizePath(challenge: challenge)).redirectQuery["code"] != nil)
            let after = try await h.get(".well-known/openid-configuration")
            #expect(after.json["require_pushed_authorization_requests"] == false)

            // The same switch over HTTP, as a test in another process uses it.
            let on = try await h.send(
                .POST, "__emulator/clients/\(Harness.native)/par-required", body: #"{"required": true}"#,
                contentType: "application/json")
            #expect(on.status == 200)
            #expect(
                try await h.get(Harness.authorizePath(challenge: challenge)).redirectQuery["error"] == "invalid_request"
            )
            let unknown = try await h.send(
                .POST, "__emulator/clients/nobody/par-required", body: #"{"required": true}"#,
                contentType: "application/json")
            #expect(unknown.status == 404)
        }
    }

    @Test("the sign-in form of a pushed request carries only client_id and request_uri, and Cancel uses it up")
    func formAndCancel() async throws {
        try await Harness.with { h in
            let pushed = try await h.postForm("oauth/par", Self.parameters(challenge: Harness.pkce().challenge))
            let requestURI = try #require(pushed["request_uri"])
            let form = try await h.get(Self.authorize(requestURI))
            #expect(form.status == 200)
            #expect(form.text.contains("name=\"request_uri\""))
            #expect(!form.text.contains("name=\"code_challenge\""))
            let signedIn = try await h.postForm(
                "u/login",
                [
                    "client_id": Harness.native, "request_uri": requestURI, "username": AuthEmulator.User.bobEmail,
                    "password": AuthEmulator.User.bobPassword,
                ])
            #expect(signedIn.status == 302)
            #expect(signedIn.redirectQuery["code"] != nil)
            #expect(signedIn.redirectQuery["state"] == "state-par")

            let second = try await h.postForm("oauth/par", Self.parameters(challenge: Harness.pkce().challenge))
            let secondURI = try #require(second["request_uri"])
            let cancelled = try await h.postForm(
                "u/login", ["client_id": Harness.native, "request_uri": secondURI, "action": "deny"])
            #expect(cancelled.redirectQuery["error"] == "access_denied")
            let reused = try await h.get(Self.authorize(secondURI))
            #expect(reused.redirectQuery["error"] == "invalid_request_uri")
        }
    }
}
