import AuthEmulator
import Foundation
import JWTKit
import NIOHTTP1
import Testing

@Suite("Back-channel logout delivery")
struct BackchannelLogoutTests {
    static let event = "http://schemas.openid.net/event/backchannel-logout"

    /// Checks a logout token as a receiver must (Back-Channel Logout 1.0 §2.6) and returns its claims.
    static func checkLogoutToken(_ token: String, _ h: Harness, audience: String) async throws -> [String: JSONValue] {
        let header = try Harness.header(of: token)
        #expect(header["typ"] == "logout+jwt")
        #expect(header["alg"] == "RS256")
        let verified = try await h.verify(token)
        #expect(verified.kid == (try await h.emulator.controls.currentKeyID()))
        let claims = verified.claims
        #expect(claims["iss"]?.stringValue == h.issuer)
        #expect(claims["aud"]?.stringValue == audience)
        let now = try h.emulator.controls.now().timeIntervalSince1970
        let iat = try #require(claims["iat"]?.doubleValue)
        let exp = try #require(claims["exp"]?.doubleValue)
        #expect(abs(iat - now) < 30)
        #expect(exp == iat + 120)
        #expect((claims["jti"]?.stringValue?.count ?? 0) >= 16)
        #expect(claims["events"] == .object([Self.event: .object([:])]))
        #expect(claims["nonce"] == nil)
        return claims
    }

    @Test func endSessionSendsOneTokenPerClientOfTheSession() async throws {
        try await LogoutReceiver.with { receiver in
            try await Harness.with { h in
                let controls = h.emulator.controls
                let browser = try await h.signInWithBrowser()
                let backendIDToken = try await h.signInConfidentialClient(cookie: browser.cookie)
                let sid = try #require(try await h.verify(browser.idToken).claims["sid"]?.stringValue)
                try await controls.setBackchannelLogoutURI(
                    receiver.url.appendingPathComponent("native"), forClient: Harness.native)
                try await controls.setBackchannelLogoutURI(
                    receiver.url.appendingPathComponent("backend"), forClient: AuthEmulator.Client.confidentialID)
                // A password sign-in has no SSO session: the logout owes it nothing.
                _ = try await h.signIn()
                #expect(try Harness.unverifiedClaims(backendIDToken)["sid"]?.stringValue == sid)

                let logout = try await h.get(
                    Harness.logoutPath(["id_token_hint": browser.idToken]), headers: [("Cookie", browser.cookie)])
                #expect(logout.status == 200)

                let deliveries = try await controls.backchannelDeliveries()
                #expect(deliveries.map(\.clientID).sorted() == [AuthEmulator.Client.confidentialID, Harness.native])
                #expect(deliveries.allSatisfy { $0.succeeded && $0.status == 200 && $0.failure == nil })
                #expect(deliveries.allSatisfy { !$0.description.contains($0.logoutToken) })
                let received = receiver.received
                #expect(received.map(\.path).sorted() == ["/backend", "/native"])
                #expect(received.allSatisfy { $0.contentType == "application/x-www-form-urlencoded" })
                var jtis: Set<String> = []
                for delivery in deliveries {
                    #expect(received.contains { $0.logoutToken == delivery.logoutToken })
                    let claims = try await Self.checkLogoutToken(delivery.logoutToken, h, audience: delivery.clientID)
                    #expect(claims["sid"]?.stringValue == sid)
                    #expect(claims["sub"]?.stringValue == AuthEmulator.User.aliceID)
                    jtis.insert(try #require(claims["jti"]?.stringValue))
                }
                #expect(jtis.count == 2)
            }
        }
    }

    @Test func endingAUserSendsSubjectTokensAndEndsEverything() async throws {
        try await LogoutReceiver.with { receiver in
            try await Harness.with { h in
                let controls = h.emulator.controls
                try await controls.setBackchannelLogoutURI(receiver.url, forClient: Harness.native)
                let browser = try await h.signInWithBrowser()
                let password = try await h.signIn()
                let deliveries = try await controls.endSessions(forUser: AuthEmulator.User.aliceID)
                #expect(deliveries.count == 1, "one token per client, however many sessions")
                let delivery = try #require(deliveries.first)
                #expect(delivery.succeeded)
                let claims = try await Self.checkLogoutToken(delivery.logoutToken, h, audience: Harness.native)
                #expect(claims["sub"]?.stringValue == AuthEmulator.User.aliceID)
                #expect(claims["sid"] == nil, "no sid: every session of the user at the client")
                #expect(receiver.received.map(\.logoutToken) == [delivery.logoutToken])
                #expect(try await !h.sessionIsAlive(cookie: browser.cookie))
                for grant in [browser.tokens, password] {
                    #expect(try await h.refresh(try #require(grant["refresh_token"]))["error"] == "invalid_grant")
                }
                #expect(try await controls.endSessions(forUser: AuthEmulator.User.aliceID).isEmpty)
                await #expect(throws: AuthEmulatorError.self) { try await controls.endSessions(forUser: "nobody") }
            }
        }
    }

    @Test func revokingGrantsSendsSubjectTokens() async throws {
        try await LogoutReceiver.with { receiver in
            try await Harness.with { h in
                _ = try await h.signIn()
                let uri = #"{"uri":"\#(receiver.url.absoluteString)"}"#
                let set = try await h.send(
                    .POST, "__emulator/clients/\(Harness.native)/backchannel-logout-uri", body: uri,
                    contentType: "application/json")
                #expect(set.status == 200)
                #expect(try await h.emulator.controls.revokeGrants(forUser: AuthEmulator.User.aliceID) == 1)
                let log = try await h.get("__emulator/backchannel/deliveries")
                guard case .array(let entries)? = log.json["deliveries"], case .object(let entry)? = entries.first
                else {
                    Issue.record("no deliveries in \(log.text)")
                    return
                }
                #expect(entries.count == 1)
                #expect(entry["status"] == 200)
                let token = try #require(entry["logoutToken"]?.stringValue)
                let claims = try await Self.checkLogoutToken(token, h, audience: Harness.native)
                #expect(claims["sub"]?.stringValue == AuthEmulator.User.aliceID)
                #expect(receiver.received.count == 1)
            }
        }
    }

    @Test func secretSigningClientsGetHS256TokensAndTheirHintsAreAccepted() async throws {
        try await LogoutReceiver.with { receiver in
            try await Harness.with(.testing { $0.clients[1].signsIDTokensWithSecret = true }) { h in
                let backend = AuthEmulator.Client.confidentialID
                try await h.emulator.controls.setBackchannelLogoutURI(receiver.url, forClient: backend)
                let browser = try await h.signInWithBrowser()
                let idToken = try await h.signInConfidentialClient(cookie: browser.cookie)
                #expect(try Harness.header(of: idToken)["alg"] == "HS256")

                let logout = try await h.get(Harness.logoutPath(["id_token_hint": idToken]))
                #expect(logout.status == 200, "an HS256 hint is verified with the client's secret")
                let delivery = try #require(try await h.emulator.controls.backchannelDeliveries().first)
                #expect(delivery.clientID == backend)
                let header = try Harness.header(of: delivery.logoutToken)
                #expect(header["alg"] == "HS256")
                #expect(header["typ"] == "logout+jwt")
                let keys = JWTKeyCollection()
                await keys.add(hmac: HMACKey(from: AuthEmulator.Client.confidentialSecret), digestAlgorithm: .sha256)
                let claims = try await keys.verify(delivery.logoutToken, as: AnyClaims.self).claims
                #expect(claims["aud"]?.stringValue == backend)
                #expect(claims["sid"] == (try Harness.unverifiedClaims(idToken)["sid"]))
            }
        }
    }
}
