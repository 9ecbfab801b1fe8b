import AuthEmulator
import Foundation
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

/// Client-initiated backchannel authentication in ping mode (OpenID CIBA Core 1.0 section 10.2), over real HTTP: the
/// emulator pings a notification endpoint that the test serves on loopback (a Hummingbird app handing each request
/// to `BackchannelPingReceiver`), and `pollBackchannelSignIn` ends its wait at the ping. The emulator's interval is a
/// minute where the test must prove the ping, so it cannot pass by polling.
@Suite("Backchannel sign-in, ping mode: the provider's ping ends the wait")
struct BackchannelPingTests {
    /// An emulator whose backchannel requests are polled every `interval` seconds.
    private static func configuration(interval: Int) -> AuthEmulator.Configuration {
        LiveEmulator.configuration { $0.lifetimes.backchannelPollInterval = interval }
    }

    /// The confidential client, registered for ping mode at `server`'s endpoint.
    private static func pingClient(
        _ emulator: AuthEmulator, _ server: PingNotificationServer, transport: TokenRecordingTransport
    ) async throws -> ProviderClient {
        try await emulator.controls.setBackchannelNotificationEndpoint(
            server.endpoint, forClient: AuthEmulator.Client.confidentialID)
        return ProviderClient(
            configuration: try emulator.providerConfiguration(
                clientID: AuthEmulator.Client.confidentialID, clientSecret: AuthEmulator.Client.confidentialSecret),
            transport: transport)
    }

    /// A ping-mode sign-in under way for alice: the emulator (polled every `interval` seconds), the test's
    /// notification endpoint, the client registered for pings there, and its poll already started.
    private struct PingSignIn {
        let emulator: AuthEmulator
        let server: PingNotificationServer
        let transport: TokenRecordingTransport
        let request: BackchannelAuthentication
        let polling: Task<Credentials, any Error>
        /// When the poll started.
        let started: ContinuousClock.Instant

        /// Starts the sign-in and runs `body` with it.
        static func with(
            interval: Int, bindingMessage: String? = nil, _ body: (PingSignIn) async throws -> Void
        ) async throws {
            try await LiveEmulator.with(BackchannelPingTests.configuration(interval: interval)) { emulator in
                try await PingNotificationServer.with { server in
                    let transport = TokenRecordingTransport()
                    let provider = try await BackchannelPingTests.pingClient(emulator, server, transport: transport)
                    let request = try await provider.backchannelSignIn(
                        loginHint: AuthEmulator.User.aliceEmail, bindingMessage: bindingMessage,
                        pingReceiver: server.receiver)
                    let polling = Task { try await provider.pollBackchannelSignIn(request) }
                    defer { polling.cancel() }
                    try await body(
                        PingSignIn(
                            emulator: emulator, server: server, transport: transport, request: request,
                            polling: polling, started: ContinuousClock.now))
                }
            }
        }
    }

    @Test("a ping ends the wait at once: tokens long before the minute's poll; nothing secret described")
    func pingEndsTheWait() async throws {
        try await PingSignIn.with(interval: 60, bindingMessage: "Order 77") { signIn in
            let (emulator, request) = (signIn.emulator, signIn.request)
            #expect(request.receivesPings)
            #expect(request.interval == 60)
            try await emulator.controls.approveBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
            let credentials = try await signIn.polling.value
            #expect(ContinuousClock.now - signIn.started < .seconds(20), "the ping, not the 60 s poll, ended the wait")
            #expect(credentials.idTokenClaims?.subject == AuthEmulator.User.aliceID)
            #expect(try await emulator.controls.requestCounts()[.ciba] == 1, "one call, after the ping")
            let ping = try #require(try await emulator.controls.backchannelPingDeliveries().last)
            #expect(ping.succeeded && ping.status == 204 && ping.fault == .none)
            #expect(signIn.server.answered == [204])

            let token = try #require(signIn.transport.formValues(named: "client_notification_token").first)
            let authReqID = try #require(signIn.transport.formValues(named: "auth_req_id").first)
            #expect(token.count >= 43, "32 random bytes")
            for text in ["\(request)", "\(ping)", "\(signIn.server.receiver)", "\(credentials)"] {
                #expect(!text.contains(token) && !text.contains(authReqID), "\(text)")
            }
            #expect("\(request)".contains("mode: ping"))
        }
    }

    @Test("a lost ping: the fallback poll still ends in tokens")
    func lostPing() async throws {
        try await PingSignIn.with(interval: 1) { signIn in
            try await signIn.emulator.controls.approveBackchannelAuthentication(
                forUser: AuthEmulator.User.aliceID, pingFault: .dropped)
            let credentials = try await signIn.polling.value
            #expect(credentials.idTokenClaims?.subject == AuthEmulator.User.aliceID)
            #expect(signIn.server.answered.isEmpty, "no ping came")
            let ping = try #require(try await signIn.emulator.controls.backchannelPingDeliveries().last)
            #expect(ping.fault == .dropped && ping.status == nil && !ping.succeeded)
            #expect("\(ping)".contains("dropped"))
        }
    }

    @Test("a wrong bearer token gets 401 and wakes nothing; the right one then does, once")
    func wrongToken() async throws {
        try await PingSignIn.with(interval: 60) { signIn in
            let (emulator, server) = (signIn.emulator, signIn.server)
            try await emulator.controls.approveBackchannelAuthentication(
                forUser: AuthEmulator.User.aliceID, pingFault: .wrongToken)
            let ping = try #require(try await emulator.controls.backchannelPingDeliveries().last)
            #expect(ping.status == 401, "the forged ping is refused")

            let token = try #require(signIn.transport.formValues(named: "client_notification_token").first)
            let authReqID = try #require(signIn.transport.answerValues(named: "auth_req_id").first)
            let body = #"{"auth_req_id":"\#(authReqID)"}"#
            #expect(try await server.post(authorization: nil, body: body) == 401)
            #expect(try await server.post(authorization: "Bearer " + token + "A", body: body) == 401)
            #expect(try await server.post(authorization: "Basic " + token, body: body) == 401)
            #expect(try await server.post(authorization: "Bearer " + token, body: "not json") == 400)
            #expect(try await server.post(authorization: "Bearer " + token, body: #"{"auth_req_id":"other"}"#) == 400)
            #expect(try await server.post(authorization: "Bearer " + token, body: "{}") == 400)
            try await Task.sleep(for: .seconds(1))
            #expect(try await emulator.controls.requestCounts()[.ciba] == 0, "nothing woke the poll")

            let started = ContinuousClock.now
            #expect(try await server.post(authorization: "bearer " + token, body: body) == 204)
            let credentials = try await signIn.polling.value
            #expect(ContinuousClock.now - started < .seconds(20))
            #expect(credentials.idTokenClaims?.subject == AuthEmulator.User.aliceID)
            // Replayed after the sign-in ended: refused, and there is nothing left to wake.
            #expect(try await server.post(authorization: "Bearer " + token, body: body) == 401)
            #expect(try await emulator.controls.requestCounts()[.ciba] == 1)
        }
    }

    @Test("a replayed ping while waiting is harmless: one sign-in, one token call")
    func duplicatePing() async throws {
        try await PingSignIn.with(interval: 60) { signIn in
            try await signIn.emulator.controls.approveBackchannelAuthentication(
                forUser: AuthEmulator.User.aliceID, pingFault: .duplicate)
            let credentials = try await signIn.polling.value
            #expect(ContinuousClock.now - signIn.started < .seconds(20), "the first ping ended the wait")
            #expect(credentials.idTokenClaims?.subject == AuthEmulator.User.aliceID)
            let pings = try await signIn.emulator.controls.backchannelPingDeliveries()
            #expect(pings.count == 2 && pings.allSatisfy { $0.status == 204 || $0.status == 401 })
            #expect(try await signIn.emulator.controls.requestCounts()[.ciba] == 1)
        }
    }

    @Test("a denial is pinged too: access_denied at once, said in words")
    func deniedPinged() async throws {
        try await PingSignIn.with(interval: 60) { signIn in
            try await signIn.emulator.controls.denyBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
            let result = await signIn.polling.result
            #expect(ContinuousClock.now - signIn.started < .seconds(20))
            let error = try #require(result.failure as? SessionKitError)
            #expect(error.oauthError == "access_denied")
            #expect(error.message.contains("denied the sign-in on their device"))
            #expect(signIn.server.answered == [204])
        }
    }

    @Test("discovery lists both modes; client_notification_token required from a ping client, refused from a poll one")
    func deliveryModeRules() async throws {
        try await LiveEmulator.with { emulator in
            try await PingNotificationServer.with { server in
                let http = AsyncHTTPClientTransport()
                let discovery = try await http.send(
                    HTTPRequest(
                        method: "GET",
                        url: emulator.issuer.appendingPathComponent(".well-known/openid-configuration")),
                    timeout: .seconds(5))
                let document = try JSONSerialization.jsonObject(with: discovery.body) as? [String: Any]
                #expect(document?["backchannel_token_delivery_modes_supported"] as? [String] == ["poll", "ping"])

                // Poll mode: a notification token is refused, by the emulator and so through the library.
                let poller = ProviderClient(
                    configuration: try emulator.providerConfiguration(
                        clientID: AuthEmulator.Client.confidentialID,
                        clientSecret: AuthEmulator.Client.confidentialSecret))
                let extra = await #expect(throws: SessionKitError.self) {
                    _ = try await poller.backchannelSignIn(
                        loginHint: AuthEmulator.User.aliceEmail, pingReceiver: server.receiver)
                }
                #expect(extra?.oauthError == "invalid_request")
                #expect(extra?.oauthErrorDescription?.contains("registered for poll mode") == true)
                #expect("\(server.receiver)".contains("0 sign-ins"), "a refused request is forgotten")

                // Ping mode: the token is required.
                let provider = try await Self.pingClient(emulator, server, transport: TokenRecordingTransport())
                let missing = await #expect(throws: SessionKitError.self) {
                    _ = try await provider.backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
                }
                #expect(missing?.oauthError == "invalid_request")
                #expect(missing?.oauthErrorDescription?.contains("client_notification_token") == true)
                let form = [
                    "client_id=\(AuthEmulator.Client.confidentialID)",
                    "client_secret=\(AuthEmulator.Client.confidentialSecret)",
                    "login_hint=\(AuthEmulator.User.aliceID)", "scope=openid", "client_notification_token=a%20b",
                ].joined(separator: "&")
                let malformed = try await http.send(
                    HTTPRequest(
                        method: "POST", url: emulator.issuer.appendingPathComponent("bc-authorize"),
                        headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(form.utf8)),
                    timeout: .seconds(5))
                #expect(malformed.status == 400)
                #expect(String(decoding: malformed.body, as: UTF8.self).contains("bearer token"))
                #expect(try await emulator.controls.backchannelPingDeliveries().isEmpty)
            }
        }
    }

    @Test("the library refuses ping when discovery does not list it, and poll-less providers without a receiver")
    func libraryRefusals() async throws {
        try await LiveEmulator.with { emulator in
            let configuration = try emulator.providerConfiguration(
                clientID: AuthEmulator.Client.confidentialID, clientSecret: AuthEmulator.Client.confidentialSecret)
            let pollOnly = RewritingTransport(answersTo: "/openid-configuration") {
                $0["backchannel_token_delivery_modes_supported"] = ["poll"]
            }
            let receiver = BackchannelPingReceiver()
            let noPing = await #expect(throws: SessionKitError.self) {
                _ = try await ProviderClient(configuration: configuration, transport: pollOnly)
                    .backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail, pingReceiver: receiver)
            }
            #expect(noPing?.code == .invalidConfiguration)
            #expect(noPing?.message.contains("lists only poll, not ping") == true, "\(String(describing: noPing))")
            let pingOnly = RewritingTransport(answersTo: "/openid-configuration") {
                $0["backchannel_token_delivery_modes_supported"] = ["ping"]
            }
            let noReceiver = await #expect(throws: SessionKitError.self) {
                _ = try await ProviderClient(configuration: configuration, transport: pingOnly)
                    .backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
            }
            #expect(noReceiver?.message.contains("only polls") == true)
            #expect(noReceiver?.message.contains("BackchannelPingReceiver") == true)
            #expect(try await emulator.controls.requestCounts()[.backchannelAuthentication] == 0, "nothing was sent")
        }
    }

    @Test("the emulator's configuration says what is wrong with a ping client")
    func configurationValidation() async throws {
        func refusal(_ mode: AuthEmulator.BackchannelTokenDeliveryMode, _ endpoint: String?) async -> String {
            var configuration = LiveEmulator.testConfiguration()
            configuration.clients[1].backchannelTokenDeliveryMode = mode
            configuration.clients[1].backchannelClientNotificationEndpoint = endpoint
            do {
                let emulator = try await LiveEmulator.start(configuration)
                await emulator.stop()
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(await refusal(.ping, nil).contains("needs a backchannelClientNotificationEndpoint"))
        #expect(await refusal(.ping, "http://example.com/ciba").contains("must use https"))
        #expect(await refusal(.poll, "https://example.com/ciba").contains("set the mode to ping"))
        #expect(await refusal(.init(rawValue: "push"), nil).contains("not supported"))
        #expect(await refusal(.ping, "http://127.0.0.1:9/ciba") == "")
        let json =
            #"{"id": "c", "backchannelTokenDeliveryMode": "ping", "#
            + #""backchannelClientNotificationEndpoint": "https://app.example/ciba"}"#
        let client = try JSONDecoder().decode(AuthEmulator.Client.self, from: Data(json.utf8))
        #expect(client.backchannelTokenDeliveryMode == .ping)
        #expect(client.backchannelClientNotificationEndpoint == "https://app.example/ciba")
    }
}

/// The real transport, keeping the form bodies it sent and the JSON answers it got, so a test can find the secrets
/// the library holds privately.
private final class TokenRecordingTransport: HTTPTransport {
    let inner = AsyncHTTPClientTransport()
    let bodies = Mutex<[String]>([])
    let answers = Mutex<[Data]>([])

    func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        if let body = request.body { bodies.withLock { $0.append(String(decoding: body, as: UTF8.self)) } }
        let response = try await inner.send(request, timeout: timeout)
        answers.withLock { $0.append(response.body) }
        return response
    }

    /// Every string value of the member `name` of the JSON objects answered so far.
    func answerValues(named name: String) -> [String] {
        answers.withLock { $0 }.compactMap { body in
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?[name] as? String
        }
    }

    /// Every value of the form field `name` sent so far.
    func formValues(named name: String) -> [String] {
        bodies.withLock { $0 }.flatMap { body in
            (URLComponents(string: "?" + body)?.queryItems ?? []).filter { $0.name == name }.compactMap(\.value)
        }
    }
}

extension Result {
    /// The error, or `nil` for a success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
