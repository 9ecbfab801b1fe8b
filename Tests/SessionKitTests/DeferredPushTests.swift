import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitLoopback
import SessionKitTesting
import Testing

/// A pushed sign-in whose push waits for the browser (`deferringPush`, `ProviderClient.pushed(_:)` and the loopback
/// start link that pushes), over real HTTP against the emulator: a link opened after a `request_uri` would have
/// expired still signs in, a push refused at that moment ends the wait with the refusal, and nothing is pushed twice.
@Suite("Pushed authorization requests: the push made when the browser arrives")
struct DeferredPushTests {
    /// The emulator with the native client required to push, and pushed requests that last `lifetime` seconds.
    private static func configuration(lifetime: Double = 30) -> AuthEmulator.Configuration {
        LiveEmulator.configuration {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            $0.lifetimes.pushedRequest = lifetime
            $0.clients = $0.clients.map { client in
                var client = client
                client.requiresPushedAuthorizationRequests = client.id == AuthEmulator.Client.nativeID
                return client
            }
        }
    }

    private static func names(_ url: URL) -> Set<String> {
        Set(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? [])
    }

    /// A loopback sign-in of the native client whose push waits for the browser: the request, the start link, and
    /// the sign-in waiting for its redirect.
    private static func waitingSignIn(_ emulator: AuthEmulator) async throws -> (
        request: AuthorizationRequest, start: URL, signIn: Task<Credentials, any Error>
    ) {
        let provider = ProviderClient(configuration: try emulator.providerConfiguration())
        let listener = try await LoopbackRedirectListener.start()
        let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI, deferringPush: true)
        let start = try listener.startURL(for: request, pushingWith: provider)
        return (request, start, Task { try await listener.signIn(request, with: provider, timeout: .seconds(30)) })
    }

    @Test("a start link opened after a request_uri's lifetime signs in: one push, made when the browser came")
    func lateBrowserSignsIn() async throws {
        try await LiveEmulator.with(Self.configuration()) { emulator in
            let (request, start, signIn) = try await Self.waitingSignIn(emulator)
            #expect(request.requestURI == nil)
            #expect(Self.names(request.url).isSuperset(of: ["state", "nonce", "code_challenge", "redirect_uri"]))
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 0)
            // Longer than a pushed request lasts: an eager push would have expired by now.
            try await emulator.controls.advanceClock(by: 31)
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: start)
            #expect(Self.names(authorization) == ["client_id", "request_uri"])
            let page = try await browser.get(try await browser.redirect(fromAuthorization: authorization))
            #expect(page.text.contains("Signed in as \(AuthEmulator.User.aliceEmail)"), "\(page.text)")
            let credentials = try await signIn.value
            #expect(credentials.idTokenClaims?.nonce == request.nonce)
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 1)
        }
    }

    @Test("a push refused when the browser arrives: the page says it failed, the wait ends with the refusal")
    func refusedAtTheBrowser() async throws {
        try await LiveEmulator.with(Self.configuration()) { emulator in
            let (_, start, signIn) = try await Self.waitingSignIn(emulator)
            try await emulator.controls.inject(.status(400), into: .pushedAuthorization)
            let page = try await LoopbackBrowser().get(start)
            #expect(page.status == 200)
            #expect(page.text.contains("Sign-in failed"), "\(page.text)")
            let error = await #expect(throws: SessionKitError.self) { try await signIn.value }
            #expect(error?.code == .providerError, "\(String(describing: error))")
            #expect(error?.message.contains("refused the pushed authorization request") == true)
        }
    }

    @Test("pushed(_:) pushes once: a pushed request is refused; with no push due, the request comes back as it was")
    func pushedOnce() async throws {
        let configuration = LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }
        try await LiveEmulator.with(configuration) { emulator in
            let redirect = try #require(URL(string: "http://127.0.0.1:9/callback"))
            var always = try emulator.providerConfiguration()
            always.pushedAuthorization = .always
            let provider = ProviderClient(configuration: always)
            let pushed = try await provider.authorizationRequest(redirectURI: redirect)
            #expect(pushed.requestURI != nil)
            let again = await #expect(throws: SessionKitError.self) { _ = try await provider.pushed(pushed) }
            #expect(again?.code == .invalidInput)
            let listener = try await LoopbackRedirectListener.start()
            let early = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
            #expect(throws: SessionKitError.self) { _ = try listener.startURL(for: early, pushingWith: provider) }
            await listener.stop()
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 2, "the two eager pushes")

            let whenRequired = ProviderClient(configuration: try emulator.providerConfiguration())
            let plain = try await whenRequired.authorizationRequest(redirectURI: redirect, deferringPush: true)
            #expect(try await whenRequired.pushed(plain).url == plain.url, "no push is due: not required, not asked")
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 2)
        }
    }
}
