import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("End-session endpoint (RP-Initiated Logout)")
struct EndSessionTests {
    static let signedOut = "http://127.0.0.1/signed-out"

    static func withLogoutRedirect(_ configuration: inout AuthEmulator.Configuration) {
        configuration.clients[0].postLogoutRedirectURIs = [signedOut]
    }

    @Test func logoutRedirectsWithStateAndEndsTheSSOSession() async throws {
        try await Harness.with(.testing(Self.withLogoutRedirect)) { h in
            let browser = try await h.signInWithBrowser()
            #expect(try await h.sessionIsAlive(cookie: browser.cookie))
            let target = "http://127.0.0.1:53117/signed-out"
            let logout = try await h.get(
                Harness.logoutPath([
                    "id_token_hint": browser.idToken, "post_logout_redirect_uri": target, "state": "bye-1",
                ]),
                headers: [("Cookie", browser.cookie)])
            #expect(logout.status == 302)
            #expect(logout.location == target + "?state=bye-1")
            let cleared = try #require(logout.headers.first(name: "Set-Cookie"))
            #expect(cleared.hasPrefix("emulator_session=;"))
            #expect(cleared.contains("Max-Age=0"))

            // The old cookie no longer signs in: the form (password) is shown again.
            let pkce = Harness.pkce()
            let next = try await h.get(
                Harness.authorizePath(challenge: pkce.challenge), headers: [("Cookie", browser.cookie)])
            #expect(next.status == 200)
            #expect(next.text.contains("name=\"password\""))
            #expect(try await !h.sessionIsAlive(cookie: browser.cookie))
        }
    }

    @Test func logoutByHintAloneEndsTheSessionItNames() async throws {
        try await Harness.with { h in
            let browser = try await h.signInWithBrowser()
            // No cookie (a back end calling on the user's behalf), no redirect: the signed-out page.
            let logout = try await h.send(.POST, "oidc/logout", body: Form.encode(["id_token_hint": browser.idToken]))
            #expect(logout.status == 200)
            #expect(logout.text.contains("Signed out"))
            #expect(try await !h.sessionIsAlive(cookie: browser.cookie))
        }
    }

    @Test func seededBackendClientReturnsToItsHomeOnAnyLoopbackPort() async throws {
        try await Harness.with { h in
            let home = "http://127.0.0.1:8080/"
            let logout = try await h.send(
                .POST, "oidc/logout",
                body: Form.encode([
                    "client_id": AuthEmulator.Client.confidentialID, "post_logout_redirect_uri": home,
                ]))
            #expect(logout.status == 303)
            #expect(logout.location == home)
            let other = try await h.get(
                Harness.logoutPath([
                    "client_id": AuthEmulator.Client.confidentialID,
                    "post_logout_redirect_uri": "http://127.0.0.1:8080/elsewhere",
                ]))
            #expect(other.status == 400)
        }
    }

    @Test func refusedRequestsEndNothing() async throws {
        try await Harness.with(.testing(Self.withLogoutRedirect)) { h in
            let browser = try await h.signInWithBrowser()
            let cookie = [("Cookie", browser.cookie)]
            var tampered = Array(browser.idToken)
            let index = tampered.count - 5
            tampered[index] = tampered[index] == "A" ? "B" : "A"
            let otherIssuer = try await Harness.withIssuedIDToken()
            let refusals: [[String: String]] = [
                ["id_token_hint": browser.idToken, "post_logout_redirect_uri": "https://evil.example/"],
                ["id_token_hint": browser.idToken, "post_logout_redirect_uri": "http://127.0.0.1:9000/other"],
                ["id_token_hint": String(tampered), "post_logout_redirect_uri": Self.signedOut],
                ["id_token_hint": String(tampered)],
                ["id_token_hint": "not-a-jwt"],
                ["id_token_hint": otherIssuer],
                ["id_token_hint": try #require(browser.tokens["access_token"])],
                ["id_token_hint": browser.idToken, "client_id": AuthEmulator.Client.confidentialID],
                ["client_id": "nobody"],
                ["post_logout_redirect_uri": Self.signedOut],
            ]
            for parameters in refusals {
                let refused = try await h.get(Harness.logoutPath(parameters), headers: cookie)
                #expect(refused.status == 400, "\(parameters.keys.sorted()) must be refused")
                #expect(refused.location == nil)
                #expect(refused.headers.first(name: "Set-Cookie") == nil)
                #expect(try await h.sessionIsAlive(cookie: browser.cookie), "\(parameters.keys.sorted()) ended it")
            }
            #expect(try await h.emulator.controls.backchannelDeliveries().isEmpty)
        }
    }

    @Test func expiredHintIsAcceptedAndFaultsApply() async throws {
        try await Harness.with(.testing(Self.withLogoutRedirect)) { h in
            let browser = try await h.signInWithBrowser()
            try await h.emulator.controls.advanceClock(by: 36_001)
            try await h.emulator.controls.inject(.status(503).times(1), into: .endSession)
            let path = Harness.logoutPath(["id_token_hint": browser.idToken])
            #expect(try await h.get(path).status == 503)
            #expect(try await h.sessionIsAlive(cookie: browser.cookie), "a faulted request is not processed")
            #expect(try await h.get(path).status == 200)
            #expect(try await !h.sessionIsAlive(cookie: browser.cookie))
            #expect(try await h.emulator.controls.requestCounts()[.endSession] == 2)
        }
    }
}

extension Harness {
    /// An ID token from another emulator (another issuer and key): a well-formed hint this one must refuse.
    static func withIssuedIDToken() async throws -> String {
        var idToken = ""
        try await Harness.with { other in
            idToken = try #require(try await other.signIn()["id_token"])
        }
        return idToken
    }
}
