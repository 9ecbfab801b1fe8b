import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTesting
import Testing

/// The transport contract (``HTTPTransport``), checked for each transport against the live emulator over
/// loopback: answers of any status, no redirects followed, the whole exchange within its timeout, bodies
/// capped, broken connections reported as network failures; and a whole renewal through each.
@Suite("Transports: AsyncHTTPClient and URLSession keep the same contract")
struct TransportTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case asyncHTTPClient
        #if canImport(Darwin) || URLSessionOnLinux
            case urlSession
        #endif
        var testDescription: String { rawValue }
        func make() -> any HTTPTransport {
            switch self {
            case .asyncHTTPClient: AsyncHTTPClientTransport()
            #if canImport(Darwin) || URLSessionOnLinux
                case .urlSession: URLSessionTransport()
            #endif
            }
        }
    }

    #if !canImport(Darwin) && !URLSessionOnLinux
        @Test("URLSessionTransport is tested only when built with --traits URLSessionOnLinux (scripts/test does)")
        func urlSessionNotBuilt() {
            #expect(ProcessInfo.processInfo.environment["SESSIONKIT_REQUIRE_URLSESSION"] != "1")
        }
    #endif

    private func discoveryRequest(_ emulator: AuthEmulator) throws -> HTTPRequest {
        HTTPRequest(method: "GET", url: try #require(URL(string: "\(emulator.issuer).well-known/openid-configuration")))
    }

    @Test(
        "an answer arrives whole, with its status and headers; an error status is an answer too",
        arguments: Kind.allCases)
    func answers(kind: Kind) async throws {
        try await LiveEmulator.with { emulator in
            let transport = kind.make()
            let response = try await transport.send(try discoveryRequest(emulator), timeout: .seconds(5))
            #expect(response.status == 200)
            #expect(response.header("content-type")?.hasPrefix("application/json") == true)
            #expect(try JSONValue(parsing: response.body)["issuer"] == .string(emulator.issuer.absoluteString))
            let form = HTTPRequest(
                method: "POST", url: emulator.issuer.appendingPathComponent("oauth/token"),
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Data("grant_type=refresh_token&refresh_token=nope&client_id=\(AuthEmulator.Client.nativeID)".utf8)
            )
            let refused = try await transport.send(form, timeout: .seconds(5))
            #expect([400, 403].contains(refused.status))
            #expect(try JSONValue(parsing: refused.body)["error"] == "invalid_grant")
        }
    }

    @Test("a redirect is returned, not followed", arguments: Kind.allCases)
    func redirects(kind: Kind) async throws {
        let configuration = LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }
        try await LiveEmulator.with(configuration) { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let request = try await provider.authorizationRequest(
                redirectURI: try #require(URL(string: "http://127.0.0.1:9/callback")))
            let response = try await kind.make().send(
                HTTPRequest(method: "GET", url: request.url), timeout: .seconds(5))
            #expect(response.status == 302)
            #expect(response.header("Location")?.hasPrefix("http://127.0.0.1:9/callback?") == true)
        }
    }

    /// Slow and stalled answers get a one-second timeout and must end near it; broken answers get a long one,
    /// so that a loaded machine cannot turn their failure into a timeout.
    @Test(
        "faults: slow answers and stalled bodies time out, broken ones fail, oversized ones are capped",
        arguments: Kind.allCases,
        [
            // Stalls of 15 s: a timeout that fires ends far sooner, even on a loaded machine.
            (AuthEmulator.Fault.latency(15), SessionKitError.Code.timeout),
            (AuthEmulator.Fault.stalledBody.delayed(by: 15), .timeout),
            (.dropConnection, .networkFailure),
            (.truncatedBody, .networkFailure),
            (.oversizedBody, .invalidResponse),
        ])
    func faults(kind: Kind, fault: (AuthEmulator.Fault, SessionKitError.Code)) async throws {
        try await LiveEmulator.with { emulator in
            try await emulator.controls.inject(fault.0.times(1), into: .discovery)
            let timeout: Duration = fault.1 == .timeout ? .seconds(1) : .seconds(20)
            let started = ContinuousClock.now
            do {
                let response = try await kind.make().send(try discoveryRequest(emulator), timeout: timeout)
                Issue.record("\(fault.0.action) must fail, got \(response.status) with \(response.body.count) bytes")
            } catch let error as SessionKitError {
                #expect(error.code == fault.1, "\(fault.0.action): \(error)")
                #expect(error.isRetryable)
            }
            if fault.1 == .timeout {
                #expect(ContinuousClock.now - started < .seconds(8), "\(fault.0.action) ended near its timeout")
            }
        }
    }

    @Test("a whole session goes through each transport: sign-in, renewal, userinfo, logout", arguments: Kind.allCases)
    func session(kind: Kind) async throws {
        try await LiveEmulator.with { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration(), transport: kind.make())
            let session = SessionManager(provider: provider, store: MemoryStore(service: "transport-\(kind)"))
            try await session.store(
                try await provider.signIn(
                    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)))
            let renewed = try await session.renew()
            #expect(try await session.userInfo().subject == AuthEmulator.User.aliceID)
            #expect(try await session.logout().revoked)
            await #expect(throws: SessionKitError.self) { try await provider.renew(renewed) }
        }
    }
}
