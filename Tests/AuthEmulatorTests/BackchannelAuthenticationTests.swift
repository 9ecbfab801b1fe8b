import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

/// `POST /bc-authorize` and the token endpoint's CIBA grant (OpenID CIBA Core 1.0, poll mode): client
/// authentication, `login_hint` and `binding_message` checks, pending, slow_down, denied, expired and one-use
/// `auth_req_id`s, the per-client grant switch and the HTTP controls, over HTTP.
@Suite("Backchannel authentication (CIBA)")
struct BackchannelAuthenticationTests {
    static let client = [
        "client_id": AuthEmulator.Client.confidentialID, "client_secret": AuthEmulator.Client.confidentialSecret,
    ]

    func start(_ h: Harness, _ extra: [String: String] = [:]) async throws -> HTTPResult {
        var parameters = Self.client
        parameters["scope"] = Harness.fullScope
        parameters["login_hint"] = AuthEmulator.User.aliceEmail
        parameters.merge(extra) { _, new in new }
        return try await h.postForm("bc-authorize", parameters)
    }

    func poll(_ h: Harness, _ id: String) async throws -> HTTPResult {
        var parameters = Self.client
        parameters["grant_type"] = AuthEmulator.GrantType.ciba.rawValue
        parameters["auth_req_id"] = id
        return try await h.token(parameters)
    }

    @Test("discovery, then pending, slow_down, approval by the control and tokens handed out once")
    func approved() async throws {
        try await Harness.with { h in
            let discovery = try await h.get(".well-known/openid-configuration")
            #expect(discovery["backchannel_authentication_endpoint"] == h.issuer + "bc-authorize")
            #expect(discovery.json["backchannel_token_delivery_modes_supported"] == ["poll", "ping"])
            #expect(discovery.json["backchannel_user_code_parameter_supported"] == false)
            #expect(discovery.text.contains(AuthEmulator.GrantType.ciba.rawValue))
            let started = try await start(h, ["binding_message": "Order 1234"])
            #expect(started.status == 200, "\(started.text)")
            #expect(started.json["expires_in"] == 120)
            #expect(started.json["interval"] == 5)
            let id = try #require(started["auth_req_id"])
            #expect(try await poll(h, id)["error"] == "authorization_pending")
            #expect(try await poll(h, id)["error"] == "slow_down", "polled again at once")
            await #expect(throws: (any Error).self, "the binding message must match") {
                try await h.emulator.controls.approveBackchannelAuthentication(
                    forUser: AuthEmulator.User.aliceID, bindingMessage: "Order 9999")
            }
            try await h.emulator.controls.approveBackchannelAuthentication(
                forUser: AuthEmulator.User.aliceID, bindingMessage: "Order 1234")
            try await h.emulator.controls.advanceClock(by: 11)
            let tokens = try await poll(h, id)
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens["refresh_token"] != nil)
            let claims = try await h.verify(try #require(tokens["id_token"])).claims
            #expect(claims["sub"]?.stringValue == AuthEmulator.User.aliceID)
            try await h.emulator.controls.advanceClock(by: 11)
            #expect(try await poll(h, id)["error"] == "invalid_grant", "tokens are handed out once")
            #expect(try await h.emulator.controls.requestCounts()[.backchannelAuthentication] == 1)
        }
    }

    @Test("denied, expired, and another client's auth_req_id")
    func deniedExpiredAndForeign() async throws {
        try await Harness.with(.testing { $0.lifetimes.backchannelPollInterval = 0 }) { h in
            let denied = try #require(try await start(h)["auth_req_id"])
            try await h.emulator.controls.denyBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
            let refused = try await poll(h, denied)
            #expect(refused.status == 403)
            #expect(refused["error"] == "access_denied")

            let late = try #require(try await start(h)["auth_req_id"])
            try await h.emulator.controls.advanceClock(by: 121)
            #expect(try await poll(h, late)["error"] == "expired_token")
            await #expect(throws: (any Error).self, "nothing pending is left to approve") {
                try await h.emulator.controls.approveBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
            }

            let other = try #require(try await start(h)["auth_req_id"])
            let foreign = try await h.token([
                "grant_type": AuthEmulator.GrantType.ciba.rawValue, "client_id": Harness.native, "auth_req_id": other,
            ])
            #expect(foreign["error"] == "invalid_grant", "\(foreign.text)")
        }
    }

    @Test("refusals: unknown user, bad binding message, no openid, public client, client without the grant")
    func refusals() async throws {
        let configuration = AuthEmulator.Configuration.testing { configuration in
            configuration.clients = configuration.clients.map { client in
                var client = client
                if client.id == AuthEmulator.Client.confidentialID { client.grantTypes.removeAll { $0 == .ciba } }
                return client
            }
            configuration.clients.append(
                AuthEmulator.Client(
                    id: "agent", name: "Agent", secret: "agent-secret-agent-secret-agent-secret", grantTypes: [.ciba],
                    redirectURIs: []))
        }
        try await Harness.with(configuration) { h in
            let agent = ["client_id": "agent", "client_secret": "agent-secret-agent-secret-agent-secret"]
            let notAllowed = try await start(h)
            #expect(notAllowed["error"] == "unauthorized_client", "\(notAllowed.text)")
            let unknown = try await start(h, agent.merging(["login_hint": "nobody@example.com"]) { $1 })
            #expect(unknown.status == 400)
            #expect(unknown["error"] == "unknown_user_id")
            let long = try await start(h, agent.merging(["binding_message": String(repeating: "x", count: 65)]) { $1 })
            #expect(long["error"] == "invalid_binding_message")
            let control = try await start(h, agent.merging(["binding_message": "pay\u{1B}[2J"]) { $1 })
            #expect(control["error"] == "invalid_binding_message")
            let noOpenID = try await start(h, agent.merging(["scope": "profile"]) { $1 })
            #expect(noOpenID["error"] == "invalid_request")
            let badSecret = try await start(h, agent.merging(["client_secret": "wrong"]) { $1 })
            #expect(badSecret.status == 401)
            let publicClient = try await h.postForm(
                "bc-authorize",
                ["client_id": Harness.native, "scope": Harness.fullScope, "login_hint": AuthEmulator.User.aliceEmail])
            #expect(publicClient["error"] == "unauthorized_client")
            let accepted = try await start(h, agent.merging(["login_hint": AuthEmulator.User.aliceID]) { $1 })
            #expect(accepted.status == 200, "a user id is a login hint too: \(accepted.text)")
        }
    }

    @Test("the HTTP controls approve, deny and slow down by user id")
    func httpControls() async throws {
        try await Harness.with(.testing { $0.lifetimes.backchannelPollInterval = 0 }) { h in
            let body = #"{"user_id":"\#(AuthEmulator.User.aliceID)"}"#
            let none = try await h.send(.POST, "__emulator/ciba/approve", body: body, contentType: "application/json")
            #expect(none.status == 404)
            let id = try #require(try await start(h)["auth_req_id"])
            let slow = try await h.send(.POST, "__emulator/ciba/slow-down", body: body, contentType: "application/json")
            #expect(slow.status == 200)
            #expect(try await poll(h, id)["error"] == "slow_down", "slowed down although the interval is 0")
            try await h.emulator.controls.advanceClock(by: 6)
            #expect(try await poll(h, id)["error"] == "authorization_pending")
            let approve = try await h.send(
                .POST, "__emulator/ciba/approve", body: body, contentType: "application/json")
            #expect(approve.status == 200, "\(approve.text)")
            try await h.emulator.controls.advanceClock(by: 6)
            #expect(try await poll(h, id).status == 200)

            let second = try #require(try await start(h)["auth_req_id"])
            let deny = try await h.send(.POST, "__emulator/ciba/deny", body: body, contentType: "application/json")
            #expect(deny.status == 200)
            #expect(try await poll(h, second)["error"] == "access_denied")
        }
    }

    @Test("ping mode over the HTTP controls: the bearer token and JSON body, a decided request answered at once")
    func pingMode() async throws {
        try await LogoutReceiver.with(.status(204)) { receiver in
            try await Harness.with { h in
                let endpoint = receiver.url.appendingPathComponent("ciba")
                let register = try await h.send(
                    .POST, "__emulator/clients/\(AuthEmulator.Client.confidentialID)/backchannel-notification-endpoint",
                    body: #"{"uri":"\#(endpoint.absoluteString)"}"#, contentType: "application/json")
                #expect(register.status == 200, "\(register.text)")
                let missing = try await start(h)
                #expect(missing.status == 400 && missing["error"] == "invalid_request")
                #expect(missing["error_description"]?.contains("client_notification_token") == true)
                let token = "notification-token-1234567890"
                let id = try #require(try await start(h, ["client_notification_token": token])["auth_req_id"])
                #expect(try await poll(h, id)["error"] == "authorization_pending")
                let body = #"{"user_id":"\#(AuthEmulator.User.aliceID)"}"#
                let approve = try await h.send(
                    .POST, "__emulator/ciba/approve", body: body, contentType: "application/json")
                #expect(approve.status == 200, "\(approve.text)")
                let ping = try #require(receiver.received.last)
                #expect(ping.path == "/ciba" && ping.contentType == "application/json")
                #expect(ping.authorization == "Bearer " + token)
                #expect(ping.body == #"{"auth_req_id":"\#(id)"}"#)
                #expect(try await poll(h, id).status == 200, "at once after the ping: no slow_down")

                let pings = try await h.get("__emulator/ciba/pings")
                let deliveries = try #require(pings.json["deliveries"]?.arrayValue)
                #expect(deliveries.count == 1 && deliveries.first?["status"] == 204)
                #expect(!pings.text.contains(token) && !pings.text.contains(id), "the log holds no secret")

                let unregister = try await h.send(
                    .POST, "__emulator/clients/\(AuthEmulator.Client.confidentialID)/backchannel-notification-endpoint",
                    body: #"{"uri":null}"#, contentType: "application/json")
                #expect(unregister.status == 200)
                let extra = try await start(h, ["client_notification_token": token])
                #expect(extra.status == 400 && extra["error_description"]?.contains("poll mode") == true)
                let insecure = try await h.send(
                    .POST, "__emulator/clients/\(AuthEmulator.Client.confidentialID)/backchannel-notification-endpoint",
                    body: #"{"uri":"http://example.com/ciba"}"#, contentType: "application/json")
                #expect(insecure.status >= 400 && insecure.text.contains("https"))
            }
        }
    }
}
