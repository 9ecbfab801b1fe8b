import AuthEmulator
import Foundation
import SessionKit
import SessionKitLoopback
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

@Suite("Sign-in grants against the live emulator")
struct SignInFlowTests {
    /// Follows the authorization URL once, as a browser would, and returns the redirect.
    private func authorize(_ request: AuthorizationRequest) async throws -> URL {
        let response = try await AsyncHTTPClientTransport().send(
            HTTPRequest(method: "GET", url: request.url), timeout: .seconds(5))
        #expect(response.status == 302)
        return try #require(response.header("Location").flatMap(URL.init(string:)))
    }

    @Test("authorization code with PKCE, state and nonce")
    func authorizationCode() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }) {
            emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let request = try await provider.authorizationRequest(
                redirectURI: try #require(URL(string: "http://127.0.0.1:49152/callback")), maxAge: 3600
            )
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.contains(URLQueryItem(name: "code_challenge_method", value: "S256")))
            #expect(!request.url.absoluteString.contains(request.codeVerifier.unsafeRawValue))
            let callback = try await authorize(request)
            let credentials = try await provider.exchange(callback: callback, for: request)
            #expect(credentials.idTokenClaims?.nonce == request.nonce)
            #expect(credentials.canRenew)
        }
    }

    @Test("a callback with a different state is refused before any exchange")
    func stateMismatch() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }) {
            emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let redirect = try #require(URL(string: "http://127.0.0.1:49152/callback"))
            let first = try await provider.authorizationRequest(redirectURI: redirect)
            let second = try await provider.authorizationRequest(redirectURI: redirect)
            let callback = try await authorize(second)
            try await emulator.controls.resetRequestCounts()
            await #expect {
                _ = try await provider.exchange(callback: callback, for: first)
            } throws: { error in
                (error as? SessionKitError)?.failedCheck == .state
            }
            #expect(try await emulator.controls.requestCounts()[.token] == 0)
        }
    }

    @Test("device authorization: pending, then approved")
    func deviceCode() async throws {
        try await LiveEmulator.with { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let authorization = try await provider.startDeviceAuthorization()
            #expect(!authorization.userCode.isEmpty)
            let polling = Task { try await provider.pollDeviceAuthorization(authorization) }
            try await waitUntil { try await emulator.controls.requestCounts()[.deviceCode] >= 1 }
            try await emulator.controls.approveDevice(
                userCode: authorization.userCode, userID: AuthEmulator.User.aliceID)
            let credentials = try await polling.value
            #expect(credentials.idTokenClaims?.subject == AuthEmulator.User.aliceID)
            #expect(try await emulator.controls.requestCounts()[.deviceCode] >= 2, "it polled while pending")
        }
    }

    @Test("device authorization denied ends with access_denied")
    func deviceDenied() async throws {
        try await LiveEmulator.with { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let authorization = try await provider.startDeviceAuthorization()
            try await emulator.controls.denyDevice(userCode: authorization.userCode)
            await #expect {
                _ = try await provider.pollDeviceAuthorization(authorization)
            } throws: { error in
                (error as? SessionKitError)?.oauthError == "access_denied"
            }
        }
    }

    @Test("wrong password is a provider error, not a crash or a retry")
    func wrongPassword() async throws {
        try await LiveEmulator.with { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            await #expect {
                _ = try await provider.signIn(username: AuthEmulator.User.aliceEmail, password: Secret("wrong"))
            } throws: { error in
                let error = error as? SessionKitError
                return error?.oauthError == "invalid_grant" && error?.isRetryable == false
            }
        }
    }

    @Test("password and device answers without an ID token are accepted (as django-oauth-toolkit sends them)")
    func noIDTokenOutsideCodeFlow() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }) {
            emulator in
            let provider = ProviderClient(
                configuration: try emulator.providerConfiguration(),
                transport: RewritingTransport(answersTo: "/token") { $0["id_token"] = nil })
            let password = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            #expect(password.idToken == nil)
            #expect(password.canRenew)
            let authorization = try await provider.startDeviceAuthorization()
            try await emulator.controls.approveDevice(
                userCode: authorization.userCode, userID: AuthEmulator.User.aliceID)
            let device = try await provider.pollDeviceAuthorization(authorization)
            #expect(device.idToken == nil)
            // The code flow with openid still requires one (OpenID Connect Core 3.1.3.3).
            let request = try await provider.authorizationRequest(
                redirectURI: try #require(URL(string: "http://127.0.0.1:49152/callback")))
            let callback = try await authorize(request)
            await #expect {
                _ = try await provider.exchange(callback: callback, for: request)
            } throws: { error in
                (error as? SessionKitError)?.failedCheck == .malformedIDToken
            }
        }
    }

    @Test("a malformed issuer or plain http to a remote host is a configuration error")
    func configuration() throws {
        for issuer in ["http://example.com/", "ftp://x/", "/relative"] {
            #expect(throws: SessionKitError.self) {
                try ProviderConfiguration(issuer: try #require(URL(string: issuer)), clientID: "c")
            }
        }
        _ = try ProviderConfiguration(issuer: try #require(URL(string: "http://127.0.0.1:8080/")), clientID: "c")
        _ = try ProviderConfiguration(issuer: try #require(URL(string: "https://example.com/")), clientID: "c")
    }

    @Test("an endpoint override or a discovered endpoint over plain http to a remote host is refused")
    func plainHTTPEndpoints() async throws {
        try await LiveEmulator.with { emulator in
            let remote = try #require(URL(string: "http://example.com/oauth/token"))
            #expect(throws: SessionKitError.self) {
                try ProviderConfiguration(
                    issuer: emulator.issuer, clientID: AuthEmulator.Client.nativeID, endpoints: .init(token: remote))
            }
            // Set after creation, or listed by the discovery document: refused before anything is sent there.
            var overridden = try emulator.providerConfiguration()
            overridden.endpoints.revocation = remote
            let transport = DiscoveryRewritingTransport(
                endpoint: "userinfo_endpoint", to: "http://example.com/userinfo")
            for provider in [
                ProviderClient(configuration: overridden),
                ProviderClient(configuration: try emulator.providerConfiguration(), transport: transport),
            ] {
                let credentials = try await provider.signIn(
                    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
                await #expect {
                    if provider.configuration.endpoints.revocation == nil {
                        _ = try await provider.userInfo(accessToken: credentials.accessToken)
                    } else {
                        try await provider.revoke(try #require(credentials.refreshToken))
                    }
                } throws: { error in
                    (error as? SessionKitError)?.code == .invalidConfiguration
                        && (error as? SessionKitError)?.message.contains("must use https") == true
                }
            }
            #expect(transport.remoteRequests.withLock { $0 } == 0)
        }
    }

    @Test("a provider that cannot be reached is a retryable network failure")
    func unreachable() async throws {
        var configuration = try ProviderConfiguration(
            issuer: try #require(URL(string: "http://127.0.0.1:9/")), clientID: "c")
        configuration.requestTimeout = .seconds(2)
        let provider = ProviderClient(configuration: configuration)
        await #expect {
            _ = try await provider.metadata()
        } throws: { error in
            let error = error as? SessionKitError
            return error?.isRetryable == true && (error?.code == .networkFailure || error?.code == .timeout)
        }
    }
}

/// The real transport, with one endpoint of the discovery document replaced; counts requests to other hosts.
private final class DiscoveryRewritingTransport: HTTPTransport {
    let inner = AsyncHTTPClientTransport()
    let endpoint: String
    let replacement: String
    let remoteRequests = Mutex(0)

    init(endpoint: String, to replacement: String) {
        self.endpoint = endpoint
        self.replacement = replacement
    }

    func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        if request.url.host != "127.0.0.1" { remoteRequests.withLock { $0 += 1 } }
        var response = try await inner.send(request, timeout: timeout)
        guard request.url.path.hasSuffix("/openid-configuration"),
            case .object(var object)? = try? JSONValue(parsing: response.body)
        else { return response }
        object[endpoint] = .string(replacement)
        response.body = (try? JSONValue.object(object).jsonData()) ?? response.body
        return response
    }
}

/// Issue 17, item 6: numbers from the network or the caller never crash the process.
@Suite("No crash from input: out-of-range numbers are refused or clamped")
struct NumericInputTests {
    /// The emulator refuses such an interval in its own configuration, so a transport in front of it
    /// rewrites its device-authorization answer (the only fake part; everything else is real HTTP).
    @Test("a device authorization with an interval of 1e300 or a negative one is refused", arguments: ["1e300", "-1"])
    func deviceNumbers(interval: String) async throws {
        try await LiveEmulator.with { emulator in
            let transport = RewritingTransport(answersTo: "/device/code") {
                $0["interval"] = .double(Double(interval) ?? 0)
            }
            let provider = ProviderClient(configuration: try emulator.providerConfiguration(), transport: transport)
            await #expect {
                _ = try await provider.startDeviceAuthorization()
            } throws: { error in
                (error as? SessionKitError)?.code == .invalidResponse
                    && (error as? SessionKitError)?.message.contains("out of range") == true
            }
        }
    }

    @Test("a max_age or a listener port out of range is refused, not a crash")
    func maxAgeAndPort() async throws {
        try await LiveEmulator.with { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let redirect = try #require(URL(string: "http://127.0.0.1:9/callback"))
            for maxAge in [Double.nan, -1, 1e300] {
                await #expect(throws: SessionKitError.self) {
                    _ = try await provider.authorizationRequest(redirectURI: redirect, maxAge: maxAge)
                }
            }
            for port in [-1, 65_536, Int.max] {
                await #expect {
                    _ = try await LoopbackRedirectListener.start(port: port)
                } throws: { ($0 as? SessionKitError)?.code == .invalidInput }
            }
        }
    }

    @Test("a request timeout out of range is refused at creation and clamped when set later")
    func requestTimeout() async throws {
        try await LiveEmulator.with { emulator in
            #expect(throws: SessionKitError.self) {
                try ProviderConfiguration(
                    issuer: emulator.issuer, clientID: AuthEmulator.Client.nativeID, requestTimeout: .seconds(Int64.max)
                )
            }
            var configuration = try emulator.providerConfiguration()
            configuration.requestTimeout = .seconds(Int64.max)
            let provider = ProviderClient(configuration: configuration)
            let credentials = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            #expect(try await provider.renew(credentials).canRenew)
        }
    }
}
