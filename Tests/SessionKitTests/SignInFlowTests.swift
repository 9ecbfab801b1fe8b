import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
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
                configuration: try emulator.providerConfiguration(), transport: IDTokenStrippingTransport())
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

/// The real transport, with `id_token` removed from every token-endpoint answer.
private struct IDTokenStrippingTransport: HTTPTransport {
    let inner = AsyncHTTPClientTransport()

    func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        var response = try await inner.send(request, timeout: timeout)
        guard request.url.path.hasSuffix("/token"), case .object(var object)? = try? JSONValue(parsing: response.body)
        else { return response }
        object["id_token"] = nil
        response.body = (try? JSONValue.object(object).jsonData()) ?? response.body
        return response
    }
}
