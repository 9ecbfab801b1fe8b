import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

/// Client-initiated backchannel authentication (OpenID CIBA Core 1.0, poll mode) through
/// `ProviderClient.backchannelSignIn` and `pollBackchannelSignIn`, over real HTTP against the emulator: approved,
/// denied, expired and slowed down, the stored session kept through every failure, and no `auth_req_id` in logs or
/// descriptions.
@Suite("Backchannel sign-in (CIBA): the user approves on their own device")
struct BackchannelSignInTests {
    private static func provider(_ emulator: AuthEmulator, logger: LogCapture? = nil, transport: RecordingTransport)
        throws -> ProviderClient
    {
        ProviderClient(
            configuration: try emulator.providerConfiguration(
                clientID: AuthEmulator.Client.confidentialID, clientSecret: AuthEmulator.Client.confidentialSecret),
            transport: transport, logger: logger?.logger)
    }

    /// A session signed in with the password grant, stored in memory.
    private static func storedSession(_ provider: ProviderClient) async throws -> (SessionManager, Credentials) {
        let session = SessionManager(provider: provider, store: MemoryStore(service: "tests.ciba.\(UUID().uuidString)"))
        let credentials = try await provider.signIn(
            username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
        try await session.store(credentials)
        return (session, credentials)
    }

    @Test("approved on the device: pending polls, then tokens for that user; nothing secret in the log")
    func approved() async throws {
        try await LiveEmulator.with { emulator in
            let capture = LogCapture()
            let transport = RecordingTransport()
            let provider = try Self.provider(emulator, logger: capture, transport: transport)
            let request = try await provider.backchannelSignIn(
                loginHint: AuthEmulator.User.aliceEmail, bindingMessage: "Order 1234")
            #expect(request.bindingMessage == "Order 1234")
            #expect(request.interval == 1)
            #expect(request.expiresAt > Date().addingTimeInterval(100))
            let pending = Mutex(0)
            let polling = Task { try await provider.pollBackchannelSignIn(request) { pending.withLock { $0 += 1 } } }
            try await waitUntil { pending.withLock { $0 } >= 1 }
            try await emulator.controls.approveBackchannelAuthentication(
                forUser: AuthEmulator.User.aliceID, bindingMessage: "Order 1234")
            let credentials = try await polling.value
            #expect(credentials.idTokenClaims?.subject == AuthEmulator.User.aliceID)
            #expect(credentials.canRenew)
            #expect(try await emulator.controls.requestCounts()[.ciba] >= 2, "it polled while pending")

            let authReqID = try #require(transport.formValues(named: "auth_req_id").first)
            #expect(transport.formValues(named: "binding_message") == ["Order 1234"])
            #expect(!"\(request)".contains(authReqID), "the description shows no auth_req_id")
            #expect("\(request)".contains("Order 1234"))
            let log = capture.lines.joined(separator: "\n")
            #expect(log.contains("backchannel authentication endpoint"), "the request is logged: \(log)")
            #expect(!log.contains(authReqID), "the log holds no auth_req_id")
            #expect(!log.contains(AuthEmulator.Client.confidentialSecret))
        }
    }

    @Test("denied on the device: access_denied said in words; the stored session is kept")
    func denied() async throws {
        try await LiveEmulator.with { emulator in
            let provider = try Self.provider(emulator, transport: RecordingTransport())
            let (session, stored) = try await Self.storedSession(provider)
            let request = try await provider.backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
            try await emulator.controls.denyBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
            await #expect {
                _ = try await provider.pollBackchannelSignIn(request)
            } throws: { error in
                let error = error as? SessionKitError
                return error?.oauthError == "access_denied" && error?.isRetryable == false
                    && error?.message.contains("denied the sign-in on their device") == true
                    && error?.message.contains("stored session is kept") == true
            }
            #expect(
                try await session.storedCredentials()?.accessToken.unsafeRawValue == stored.accessToken.unsafeRawValue)
        }
    }

    @Test("nobody approves in time: expired_token, start a new one")
    func expired() async throws {
        try await LiveEmulator.with { emulator in
            let provider = try Self.provider(emulator, transport: RecordingTransport())
            let request = try await provider.backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
            try await emulator.controls.advanceClock(by: 121)
            await #expect {
                _ = try await provider.pollBackchannelSignIn(request)
            } throws: { error in
                let error = error as? SessionKitError
                return error?.oauthError == "expired_token" && error?.message.contains("start a new one") == true
            }
        }
    }

    @Test("a poll refused outright (a spent request: invalid_grant) stops at once, said in words, nothing stored")
    func pollRefused() async throws {
        try await LiveEmulator.with { emulator in
            let provider = try Self.provider(emulator, transport: RecordingTransport())
            let (session, stored) = try await Self.storedSession(provider)
            let request = try await provider.backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
            try await emulator.controls.approveBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
            _ = try await provider.pollBackchannelSignIn(request)
            let spent = await #expect(throws: SessionKitError.self) {
                try await provider.pollBackchannelSignIn(request)
            }
            #expect(spent?.oauthError == "invalid_grant" && spent?.isRetryable == false)
            #expect(spent?.message.contains("instead of answering authorization_pending") == true)
            #expect(spent?.message.contains("start a new sign-in") == true, "\(String(describing: spent))")
            #expect(
                try await session.storedCredentials()?.accessToken.unsafeRawValue == stored.accessToken.unsafeRawValue)
        }
    }

    @Test("slow_down: the next poll comes 5 s later, not at the old interval")
    func slowDown() async throws {
        try await LiveEmulator.with { emulator in
            let provider = try Self.provider(emulator, transport: RecordingTransport())
            let request = try await provider.backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
            try await emulator.controls.slowDownBackchannelPolling(forUser: AuthEmulator.User.aliceID)
            let started = ContinuousClock.now
            let polling = Task { try await provider.pollBackchannelSignIn(request) }
            try await waitUntil { try await emulator.controls.requestCounts()[.ciba] >= 1 }
            try await emulator.controls.approveBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
            _ = try await polling.value
            #expect(ContinuousClock.now - started >= .seconds(6), "1 s, then 1 + 5 s after the slow_down")
            // A client that kept polling every second would have met more slow_downs (the emulator's interval grew
            // to 6 s) and sent more polls.
            #expect(try await emulator.controls.requestCounts()[.ciba] == 2)
        }
    }

    @Test("a 503 while polling is retryable and leaves the request pollable: polling again gets the tokens")
    func transientFailure() async throws {
        try await LiveEmulator.with { emulator in
            let provider = try Self.provider(emulator, transport: RecordingTransport())
            let request = try await provider.backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
            try await emulator.controls.inject(
                .init(action: .status, status: 503, count: 1, grantType: .ciba), into: .token)
            await #expect {
                _ = try await provider.pollBackchannelSignIn(request)
            } throws: { error in
                (error as? SessionKitError)?.isRetryable == true
            }
            try await emulator.controls.approveBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
            let credentials = try await provider.pollBackchannelSignIn(request)
            #expect(credentials.idTokenClaims?.subject == AuthEmulator.User.aliceID)
        }
    }

    @Test("refusals before any poll: unknown login hint, public client, no endpoint; nothing stored")
    func refusals() async throws {
        try await LiveEmulator.with { emulator in
            let provider = try Self.provider(emulator, transport: RecordingTransport())
            let (session, stored) = try await Self.storedSession(provider)
            await #expect {
                _ = try await provider.backchannelSignIn(loginHint: "nobody@example.com")
            } throws: { error in
                let error = error as? SessionKitError
                return error?.oauthError == "unknown_user_id" && error?.message.contains("login hint") == true
            }
            await #expect {
                _ = try await provider.backchannelSignIn(
                    loginHint: AuthEmulator.User.aliceEmail, bindingMessage: String(repeating: "x", count: 80))
            } throws: { error in
                (error as? SessionKitError)?.oauthError == "invalid_binding_message"
            }
            #expect(
                try await session.storedCredentials()?.accessToken.unsafeRawValue == stored.accessToken.unsafeRawValue)

            let publicClient = ProviderClient(configuration: try emulator.providerConfiguration())
            await #expect {
                _ = try await publicClient.backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
            } throws: { error in
                (error as? SessionKitError)?.code == .invalidConfiguration
            }
            // The emulator publishes the endpoint and polls: a transport rewrites its discovery document for a
            // provider without CIBA and for one that only pings (the only fake part here).
            let configuration = try emulator.providerConfiguration(
                clientID: AuthEmulator.Client.confidentialID, clientSecret: AuthEmulator.Client.confidentialSecret)
            let withoutEndpoint = RewritingTransport(answersTo: "/openid-configuration") {
                $0["backchannel_authentication_endpoint"] = nil
            }
            let missing = await #expect(throws: SessionKitError.self) {
                _ = try await ProviderClient(configuration: configuration, transport: withoutEndpoint)
                    .backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
            }
            #expect(missing?.missingEndpoint == .backchannelAuthentication)
            #expect(missing?.message.contains("EndpointOverrides.backchannelAuthentication") == true)
            let pingOnly = RewritingTransport(answersTo: "/openid-configuration") {
                $0["backchannel_token_delivery_modes_supported"] = ["ping"]
            }
            let ping = await #expect(throws: SessionKitError.self) {
                _ = try await ProviderClient(configuration: configuration, transport: pingOnly)
                    .backchannelSignIn(loginHint: AuthEmulator.User.aliceEmail)
            }
            #expect(ping?.code == .invalidConfiguration)
            #expect(ping?.message.contains("only polls") == true, "\(String(describing: ping))")
            #expect(try await emulator.controls.requestCounts()[.backchannelAuthentication] == 2)
        }
    }
}

/// The real transport, keeping the form bodies it sent so a test can find a secret the library holds privately.
private final class RecordingTransport: HTTPTransport {
    let inner = AsyncHTTPClientTransport()
    let bodies = Mutex<[String]>([])

    func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        if let body = request.body { bodies.withLock { $0.append(String(decoding: body, as: UTF8.self)) } }
        return try await inner.send(request, timeout: timeout)
    }

    /// Every value of the form field `name` sent so far.
    func formValues(named name: String) -> [String] {
        bodies.withLock { $0 }.flatMap { body in
            (URLComponents(string: "?" + body)?.queryItems ?? []).filter { $0.name == name }.compactMap(\.value)
        }
    }
}
