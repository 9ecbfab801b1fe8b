import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitLoopback
import SessionKitTesting
import Testing

/// Pushed authorization requests (RFC 9126) through `ProviderClient.authorizationRequest` and the loopback browser
/// flow, over real HTTP against the emulator: pushed when required or asked for, the browser carrying only
/// `client_id` and `request_uri`, refusals that keep the stored session, and DPoP.
@Suite("Pushed authorization requests: the browser carries only a request_uri")
struct PushedAuthorizationSignInTests {
    private static let autoSignIn = LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }

    /// The emulator with the native client required to push.
    private static let required = LiveEmulator.configuration {
        $0.autoSignInUser = AuthEmulator.User.aliceEmail
        $0.clients = $0.clients.map { client in
            var client = client
            client.requiresPushedAuthorizationRequests = client.id == AuthEmulator.Client.nativeID
            return client
        }
    }

    private static func query(_ url: URL) -> [String: String] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// A session signed in with the password grant, stored in memory.
    private static func storedSession(_ provider: ProviderClient) async throws -> (SessionManager, Credentials) {
        let session = SessionManager(provider: provider, store: MemoryStore(service: "tests.par.\(UUID().uuidString)"))
        let credentials = try await provider.signIn(
            username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
        try await session.store(credentials)
        return (session, credentials)
    }

    /// A loopback sign-in with `provider`: the request, and the browser's page and the sign-in's outcome.
    private static func signIn(
        _ provider: ProviderClient, session: SessionManager? = nil, before: @Sendable () async throws -> Void = {}
    ) async throws -> (
        request: AuthorizationRequest, page: LoopbackBrowser.Page, result: Result<Credentials, any Error>
    ) {
        let listener = try await LoopbackRedirectListener.start()
        let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
        let start = try listener.startURL(for: request)
        let signIn = Task {
            try await listener.signIn(request, with: provider, timeout: .seconds(30)) { credentials in
                try await session?.store(credentials)
            }
        }
        try await before()
        let page = try await LoopbackBrowser().signIn(startingAt: start)
        return (request, page, await signIn.result)
    }

    @Test("required by discovery: pushed automatically; the URL has client_id and request_uri only; signed in")
    func pushedWhenRequired() async throws {
        try await LiveEmulator.with(Self.required) { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            #expect(try await provider.metadata().requirePushedAuthorizationRequests == true)
            let (request, page, result) = try await Self.signIn(provider)
            #expect(Set(Self.query(request.url).keys) == ["client_id", "request_uri"])
            #expect(request.requestURI?.hasPrefix("urn:ietf:params:oauth:request_uri:") == true)
            #expect(!request.url.absoluteString.contains(request.state), "state travels in the push, not the URL")
            #expect(page.text.contains("Signed in as \(AuthEmulator.User.aliceEmail)"), "\(page.text)")
            let credentials = try result.get()
            #expect(credentials.idTokenClaims?.nonce == request.nonce)
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 1)
        }
    }

    @Test("not required: the parameters travel in the URL, unless the configuration asks for .always")
    func onRequest() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let plain = ProviderClient(configuration: try emulator.providerConfiguration())
            let (unpushed, _, plainResult) = try await Self.signIn(plain)
            #expect(unpushed.requestURI == nil)
            #expect(Self.query(unpushed.url)["code_challenge"] != nil)
            _ = try plainResult.get()
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 0)

            var configuration = try emulator.providerConfiguration()
            configuration.pushedAuthorization = .always
            let (pushed, page, result) = try await Self.signIn(ProviderClient(configuration: configuration))
            #expect(pushed.requestURI != nil)
            #expect(Self.query(pushed.url)["code_challenge"] == nil)
            #expect(page.text.contains("Signed in"))
            _ = try result.get()
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 1)
        }
    }

    @Test("repeating the OpenID parameters: response_type, scope and redirect_uri beside request_uri, nothing secret")
    func repeatingOpenIDParameters() async throws {
        try await LiveEmulator.with(Self.required) { emulator in
            var configuration = try emulator.providerConfiguration()
            configuration.pushedAuthorization = PushedAuthorization.whenRequired.repeatingOpenIDParameters()
            #expect("\(configuration.pushedAuthorization)" == "whenRequired, repeating OpenID parameters")
            let (request, page, result) = try await Self.signIn(ProviderClient(configuration: configuration))
            let query = Self.query(request.url)
            #expect(Set(query.keys) == ["client_id", "request_uri", "response_type", "scope", "redirect_uri"])
            #expect(query["response_type"] == "code" && query["scope"]?.contains("openid") == true)
            #expect(query["redirect_uri"] == request.redirectURI.absoluteString)
            #expect(!request.url.absoluteString.contains(request.state), "state travels in the push only")
            #expect(page.text.contains("Signed in as \(AuthEmulator.User.aliceEmail)"), "\(page.text)")
            #expect(try result.get().idTokenClaims?.nonce == request.nonce)
        }
    }

    @Test("a request_uri that expires before the browser arrives: invalid_request_uri, clear, the session kept")
    func expiredKeepsSession() async throws {
        let configuration = LiveEmulator.configuration {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            $0.lifetimes.pushedRequest = 30
        }
        try await LiveEmulator.with(configuration) { emulator in
            var pushing = try emulator.providerConfiguration()
            pushing.pushedAuthorization = .always
            let provider = ProviderClient(configuration: pushing)
            let (session, stored) = try await Self.storedSession(provider)
            let (_, page, result) = try await Self.signIn(provider, session: session) {
                try await emulator.controls.advanceClock(by: 31)
            }
            #expect(page.status != 200 || !page.text.contains("Signed in"))
            let error = try #require(result.failure as? SessionKitError)
            #expect(error.code == .providerError)
            #expect(error.oauthError == "invalid_request_uri")
            #expect(error.message.contains("expired"), "\(error)")
            #expect(error.message.contains("start the sign-in again"), "\(error)")
            let kept = try #require(try await session.storedCredentials())
            #expect(kept.accessToken.unsafeRawValue == stored.accessToken.unsafeRawValue)
        }
    }

    @Test("a push refused with 400 invalid_request or 401 invalid_client: a typed error, no secret, session kept")
    func refusedPushKeepsSession() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            var pushing = try emulator.providerConfiguration()
            pushing.pushedAuthorization = .always
            let provider = ProviderClient(configuration: pushing)
            let (session, stored) = try await Self.storedSession(provider)
            let unregistered = try #require(URL(string: "http://127.0.0.1:9/not-registered"))
            let refused = await #expect(throws: SessionKitError.self) {
                _ = try await provider.authorizationRequest(redirectURI: unregistered)
            }
            #expect(refused?.code == .providerError)
            #expect(refused?.httpStatus == 400)
            #expect(refused?.oauthError == "invalid_request")
            #expect(refused?.message.contains("pushed authorization request") == true, "\(String(describing: refused))")
            #expect(refused?.message.contains("a stored session is kept") == true)
            let kept = try #require(try await session.storedCredentials())
            #expect(kept.accessToken.unsafeRawValue == stored.accessToken.unsafeRawValue)

            let secret = "a-wrong-secret-that-must-not-show"
            var confidential = try emulator.providerConfiguration(
                clientID: AuthEmulator.Client.confidentialID, clientSecret: secret)
            confidential.pushedAuthorization = .always
            let wrongSecret = await #expect(throws: SessionKitError.self) {
                _ = try await ProviderClient(configuration: confidential).authorizationRequest(
                    redirectURI: try #require(URL(string: "http://127.0.0.1:9/callback")))
            }
            #expect(wrongSecret?.oauthError == "invalid_client")
            #expect(wrongSecret?.httpStatus == 401)
            #expect(wrongSecret?.message.contains("check the client id, its secret") == true)
            #expect(wrongSecret.map { "\($0)" }?.contains(secret) == false)
        }
    }

    @Test("a confidential client pushes with its secret, as at the token endpoint, and signs in; the log is clean")
    func confidentialClient() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            var configuration = try emulator.providerConfiguration(
                clientID: AuthEmulator.Client.confidentialID, clientSecret: AuthEmulator.Client.confidentialSecret)
            configuration.pushedAuthorization = .always
            let capture = LogCapture()
            let provider = ProviderClient(configuration: configuration, logger: capture.logger)
            let (request, page, result) = try await Self.signIn(provider)
            let requestURI = try #require(request.requestURI)
            #expect(page.text.contains("Signed in"))
            _ = try result.get()
            let log = capture.lines.joined(separator: "\n")
            #expect(log.contains("pushed authorization request endpoint"), "the push is logged")
            for secret in [
                AuthEmulator.Client.confidentialSecret, request.codeVerifier.unsafeRawValue, request.state,
                request.nonce, requestURI,
            ] {
                #expect(!log.contains(secret), "the log holds no secret of the push")
            }
            #expect(!"\(request)".contains(requestURI), "the request's description shows no request_uri")
        }
    }

    @Test("DPoP: the push carries a proof (nonce demand answered); the code is bound to that key")
    func dpop() async throws {
        let configuration = LiveEmulator.configuration {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            $0.dpopNonceRequired = true
        }
        try await LiveEmulator.with(configuration) { emulator in
            var bound = try emulator.providerConfiguration()
            bound.pushedAuthorization = .always
            bound.dpop = DPoPKey.generate()
            let provider = ProviderClient(configuration: bound)
            let (request, _, result) = try await Self.signIn(provider)
            #expect(request.requestURI != nil)
            #expect(try result.get().isDPoPBound)
            #expect(
                try await emulator.controls.requestCounts()[.pushedAuthorization] == 2, "use_dpop_nonce, then 201")

            // A code from a push made with one key is refused with a proof of another.
            let listener = try await LoopbackRedirectListener.start()
            let second = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
            await listener.stop()
            let callback = try await LoopbackBrowser().redirect(fromAuthorization: second.url)
            var other = bound
            other.dpop = DPoPKey.generate()
            let refused = await #expect(throws: SessionKitError.self) {
                _ = try await ProviderClient(configuration: other).exchange(callback: callback, for: second)
            }
            #expect(refused?.oauthError == "invalid_grant")
        }
    }
}

extension Result {
    /// The failure, if this is one.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
