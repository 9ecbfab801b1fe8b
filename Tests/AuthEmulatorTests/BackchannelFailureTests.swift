import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Back-channel logout: failing receivers and a misbehaving provider")
struct BackchannelFailureTests {
    @Test func stalledAndFailingReceiversNeverHoldTheLogoutUp() async throws {
        try await LogoutReceiver.with(.stall(seconds: 30)) { stalled in
            try await LogoutReceiver.with(.status(500)) { failing in
                // 3 s: long enough for the failing receiver's answer on a loaded machine, far below the stall.
                try await Harness.with(.testing { $0.backchannelLogoutTimeout = 3 }) { h in
                    let controls = h.emulator.controls
                    try await controls.setBackchannelLogoutURI(stalled.url, forClient: Harness.native)
                    try await controls.setBackchannelLogoutURI(
                        failing.url, forClient: AuthEmulator.Client.confidentialID)
                    let browser = try await h.signInWithBrowser()
                    _ = try await h.signInConfidentialClient(cookie: browser.cookie)

                    let start = ContinuousClock.now
                    let logout = try await h.get(Harness.logoutPath(["id_token_hint": browser.idToken]))
                    let elapsed = start.duration(to: .now)
                    #expect(logout.status == 200)
                    // Bounds far below the receiver's 30 s stall, with room for a loaded machine.
                    #expect(elapsed < .seconds(12), "took \(elapsed) with a 3 s delivery timeout")
                    #expect(try await !h.sessionIsAlive(cookie: browser.cookie))

                    let deliveries = try await controls.backchannelDeliveries()
                    let toStalled = try #require(deliveries.first { $0.clientID == Harness.native })
                    #expect(toStalled.status == nil)
                    #expect(toStalled.failure == .timedOut)
                    #expect(!toStalled.succeeded)
                    #expect(toStalled.duration < 10)
                    let toFailing = try #require(deliveries.first { $0.clientID == AuthEmulator.Client.confidentialID })
                    #expect(toFailing.status == 500)
                    #expect(toFailing.failure == nil)
                    #expect(!toFailing.succeeded)
                    #expect(stalled.received.count == 1, "no retry")
                    #expect(failing.received.count == 1, "no retry")
                    // The emulator still serves.
                    #expect(try await h.get(".well-known/openid-configuration").status == 200)
                }
            }
        }
    }

    @Test func refusedConnectionIsRecorded() async throws {
        // A long delivery timeout, so that a loaded machine cannot mistake a refusal for a timeout.
        try await Harness.with(.testing { $0.backchannelLogoutTimeout = 30 }) { h in
            let controls = h.emulator.controls
            try await controls.setBackchannelLogoutURI(
                URL(string: "http://127.0.0.1:9/logout"), forClient: Harness.native)
            let delivery = try await controls.sendLogoutToken(
                toClient: Harness.native, subject: AuthEmulator.User.aliceID, sid: nil)
            #expect(
                delivery.failure == .connectionFailed,
                "failure: \(String(describing: delivery.failure)), after \(delivery.duration) s")
            #expect(delivery.status == nil)
            #expect(delivery.duration < 10, "a refused connection fails at once, not at the 30 s timeout")
            #expect(try await controls.backchannelDeliveries() == [delivery])
            try await controls.clearBackchannelDeliveries()
            #expect(try await controls.backchannelDeliveries().isEmpty)
        }
    }

    @Test func controlsRefuseUnknownClientsAndBadURIs() async throws {
        try await Harness.with { h in
            let controls = h.emulator.controls
            await #expect(throws: AuthEmulatorError.self) {
                try await controls.sendLogoutToken(toClient: Harness.native, subject: "someone", sid: nil)
            }
            await #expect(throws: AuthEmulatorError.self) {
                try await controls.setBackchannelLogoutURI(URL(string: "http://127.0.0.1/"), forClient: "nobody")
            }
            await #expect(throws: AuthEmulatorError.self) {
                try await controls.setBackchannelLogoutURI(URL(string: "ftp://127.0.0.1/"), forClient: Harness.native)
            }
        }
        var configuration = AuthEmulator.Configuration.testing()
        configuration.clients[0].backchannelLogoutURI = "not a url"
        await #expect(throws: AuthEmulatorError.self) { try await AuthEmulator.start(configuration: configuration) }
    }

    @Test func alteredTokensBreakOneRuleEach() async throws {
        try await LogoutReceiver.with { receiver in
            try await Harness.with { h in
                let controls = h.emulator.controls
                try await controls.setBackchannelLogoutURI(receiver.url, forClient: Harness.native)
                let alice = AuthEmulator.User.aliceID
                func send(_ alteration: AuthEmulator.LogoutTokenAlteration) async throws -> String {
                    let delivery = try await controls.sendLogoutToken(
                        toClient: Harness.native, subject: alice, sid: "sid-1", altering: alteration)
                    #expect(delivery.succeeded)
                    return delivery.logoutToken
                }
                let plain = try Harness.unverifiedClaims(try await send(.none))
                #expect(plain["sub"]?.stringValue == alice)
                #expect(plain["sid"] == "sid-1")

                let broken = try await send(
                    .init(issuer: "https://other.example/", audience: "someone-else", omitsEvents: true, nonce: "n-1"))
                let claims = try await h.verify(broken).claims
                #expect(claims["iss"] == "https://other.example/")
                #expect(claims["aud"] == "someone-else")
                #expect(claims["events"] == nil)
                #expect(claims["nonce"] == "n-1")

                let old = try await send(.init(issuedAt: Date(timeIntervalSince1970: 1_000_000), lifetime: 60))
                #expect(try Harness.unverifiedClaims(old)["exp"] == 1_000_060)

                let typed = try await send(.init(type: "JWT", jti: "fixed-jti"))
                #expect(try Harness.header(of: typed)["typ"] == "JWT")
                #expect(try Harness.unverifiedClaims(typed)["jti"] == "fixed-jti")

                let forged = try await send(.init(signsWithUnpublishedKey: true))
                #expect(try Harness.header(of: forged)["kid"]?.stringValue == (try await controls.currentKeyID()))
                await #expect(throws: (any Error).self) { try await h.verify(forged) }
                #expect(receiver.received.count == 5)
            }
        }
    }
}
