import AuthEmulator
import Foundation
import SessionKit
import SessionKitLoopback
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

/// The browser sign-in through `LoopbackRedirectListener`, over real HTTP on loopback against the emulator.
@Suite("Loopback sign-in: only the real redirect counts, and the page tells the truth")
struct LoopbackSignInTests {
    private static let autoSignIn = LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }

    /// A listener, a request for it, and the sign-in running in the background.
    private struct Flow {
        let listener: LoopbackRedirectListener
        let request: AuthorizationRequest
        let start: URL
        let ignored: Recorder
        let signIn: Task<Credentials, any Error>
    }

    private func begin(
        _ emulator: AuthEmulator, configuration: LoopbackRedirectListener.Configuration = .init()
    ) async throws -> (Flow, ProviderClient) {
        let provider = ProviderClient(configuration: try emulator.providerConfiguration())
        let ignored = Recorder()
        var configuration = configuration
        configuration.onIgnoredRequest = { ignored.append($0.reason) }
        let listener = try await LoopbackRedirectListener.start(configuration: configuration)
        let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
        let start = try listener.startURL(for: request)
        let signIn = Task { try await listener.signIn(request, with: provider, timeout: .seconds(60)) }
        return (
            Flow(listener: listener, request: request, start: start, ignored: ignored, signIn: signIn),
            provider
        )
    }

    private func callback(_ flow: Flow, _ query: String) throws -> URL {
        try #require(URL(string: flow.listener.redirectURI.absoluteString + query))
    }

    @Test("a callback with a wrong state, then one without, are answered 400 and ignored; the real one signs in")
    func strayCallbacks() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let (flow, _) = try await begin(emulator)
            let browser = LoopbackBrowser()
            let wrong = try await browser.get(try callback(flow, "?state=forged&code=stolen"))
            #expect(wrong.status == 400)
            #expect(wrong.text.contains("does not belong to the sign-in in progress"))
            #expect(wrong.response.header("Cache-Control") == "no-store")
            #expect(wrong.response.header("Referrer-Policy") == "no-referrer")
            let none = try await browser.get(try callback(flow, "?code=stolen"))
            #expect(none.status == 400)
            let page = try await browser.signIn(startingAt: flow.start)
            #expect(page.status == 200)
            #expect(page.text.contains("Signed in as \(AuthEmulator.User.aliceEmail)"))
            #expect(page.response.header("Cache-Control") == "no-store")
            #expect(page.response.header("Referrer-Policy") == "no-referrer")
            #expect(!page.text.contains("http"), "no third-party (or any) resources")
            let credentials = try await flow.signIn.value
            #expect(credentials.idTokenClaims?.nonce == flow.request.nonce)
            #expect(flow.ignored.values.withLock { $0 } == [.wrongState, .missingState])
            #expect(try await emulator.controls.requestCounts()[.token] == 1, "the strays caused no exchange")
        }
    }

    @Test("the user cancels at the provider: error=access_denied ends the sign-in with a typed error, the page says so")
    func accessDenied() async throws {
        try await LiveEmulator.with { emulator in
            let (flow, _) = try await begin(emulator)
            let browser = LoopbackBrowser()
            let redirect = try await browser.cancelSignIn(at: try await browser.authorizationURL(fromStart: flow.start))
            #expect(redirect.query?.contains("error=access_denied") == true)
            let page = try await browser.get(redirect)
            #expect(page.status == 200)
            #expect(page.text.contains("Sign-in failed: access was denied at the provider (access_denied)"))
            #expect(!page.text.contains("cancelled the sign-in"), "the provider's own text is not shown")
            await #expect {
                _ = try await flow.signIn.value
            } throws: { error in
                let error = error as? SessionKitError
                return error?.code == .providerError && error?.oauthError == "access_denied"
            }
        }
    }

    @Test("provider text in a redirect never reaches the page, even as HTML")
    func providerTextNotShown() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let (flow, _) = try await begin(emulator)
            let description = "%3Cscript%3Ealert(1)%3C%2Fscript%3E"
            let page = try await LoopbackBrowser().get(
                try callback(
                    flow, "?error=%3Cb%3Ex&error_description=\(description)&state=\(flow.request.state)"))
            #expect(page.text.contains("Sign-in failed: the provider refused the sign-in."))
            #expect(!page.text.contains("<script") && !page.text.contains("<b>"))
            _ = await flow.signIn.result
        }
    }

    @Test("a redirect whose ID token fails validation: the page says sign-in failed, and shows no code or token")
    func invalidIDToken() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let (flow, _) = try await begin(emulator)
            let browser = LoopbackBrowser()
            // The provider is asked for another nonce than the one the request will check.
            let authorization = LoopbackBrowser.replacing(
                "nonce", with: "injected-nonce", in: try await browser.authorizationURL(fromStart: flow.start))
            let redirect = try await browser.redirect(fromAuthorization: authorization)
            let page = try await browser.get(redirect)
            #expect(page.text.contains("Sign-in failed"))
            #expect(page.text.contains("(nonce)"))
            let code = try #require(
                URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?
                    .value)
            #expect(!page.text.contains(code))
            await #expect {
                _ = try await flow.signIn.value
            } throws: { error in
                (error as? SessionKitError)?.failedCheck == .nonce
            }
        }
    }

    @Test("50 idle connections (some with half a request) do not block the real redirect")
    func idleConnections() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let (flow, _) = try await begin(emulator)
            let idle = try IdleConnections(count: 50, port: try #require(flow.listener.redirectURI.port))
            defer { idle.close() }
            let page = try await LoopbackBrowser().signIn(startingAt: flow.start)
            #expect(page.text.contains("Signed in as"))
            _ = try await flow.signIn.value
        }
    }

    @Test("the page waits for the exchange and for the caller's last step, and then tells the truth")
    func pageWaitsForOutcome() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            // The held connection outlives the idle timeout: only idle ones are closed.
            let listener = try await LoopbackRedirectListener.start(
                configuration: .init(idleTimeout: .milliseconds(300)))
            let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
            let start = try listener.startURL(for: request)
            let stored = Mutex<ContinuousClock.Instant?>(nil)
            let signIn = Task {
                try await listener.signIn(request, with: provider, timeout: .seconds(60)) { _ in
                    try await Task.sleep(for: .seconds(1))
                    stored.withLock { $0 = .now }
                }
            }
            let page = try await LoopbackBrowser().signIn(startingAt: start)
            let answered = ContinuousClock.now
            #expect(page.text.contains("Signed in as"))
            #expect(try #require(stored.withLock { $0 }) <= answered, "the page came after the session was stored")
            _ = try await signIn.value
        }
    }

    @Test("a held page that is never completed says to look at the application after the response timeout")
    func heldPageTimeout() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let listener = try await LoopbackRedirectListener.start(configuration: .init(responseTimeout: .seconds(1)))
            defer { Task { await listener.stop() } }
            let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
            let start = try listener.startURL(for: request)
            let waiting = Task { try await listener.waitForRedirect(timeout: .seconds(30)) }
            let page = try await LoopbackBrowser().signIn(startingAt: start)
            #expect(page.text.contains("See the application for the result"))
            #expect(!page.text.contains("Signed in"))
            let redirect = try await waiting.value
            #expect(redirect.url.absoluteString.hasPrefix(listener.redirectURI.absoluteString + "?code="))
            #expect(!"\(redirect)".contains("code"), "its description leaves out the query")
        }
    }

    @Test("a repeated redirect with the right state (a reload) is answered 400 and changes nothing")
    func repeatedRedirect() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let ignored = Recorder()
            let listener = try await LoopbackRedirectListener.start(
                configuration: .init(onIgnoredRequest: { ignored.append($0.reason) }))
            defer { Task { await listener.stop() } }
            let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
            let start = try listener.startURL(for: request)
            let browser = LoopbackBrowser()
            let redirect = try await browser.redirect(
                fromAuthorization: try await browser.authorizationURL(fromStart: start))
            let held = Task { try await browser.get(redirect) }
            let received = try await listener.waitForRedirect(timeout: .seconds(30))
            let again = try await browser.get(redirect)
            #expect(again.status == 400)
            #expect(again.text.contains("already received its answer"))
            let forged = try await browser.get(try #require(URL(string: "\(listener.redirectURI)?state=forged")))
            #expect(forged.text.contains("does not belong"))
            #expect(ignored.values.withLock { $0 } == [.alreadyCompleted, .wrongState])
            await received.complete(signedInAs: "alice")
            #expect(try await held.value.text.contains("Signed in as alice."))
        }
    }

    @Test("idle connections are closed after the idle timeout")
    func idleTimeout() async throws {
        let listener = try await LoopbackRedirectListener.start(configuration: .init(idleTimeout: .milliseconds(200)))
        defer { Task { await listener.stop() } }
        let idle = try IdleConnections(count: 4, port: try #require(listener.redirectURI.port))
        defer { idle.close() }
        #expect(idle.closedByPeer() == 0)
        try await Task.sleep(for: .seconds(1))
        #expect(idle.closedByPeer() == 4)
    }

    @Test("no redirect in time is a timeout")
    func timeout() async throws {
        let listener = try await LoopbackRedirectListener.start()
        await #expect {
            _ = try await listener.waitForRedirect(timeout: .milliseconds(200))
        } throws: { error in
            (error as? SessionKitError)?.code == .timeout
        }
        await listener.stop()
    }
}

/// Collects reasons from the listener's callback.
final class Recorder: Sendable {
    let values = Mutex<[LoopbackRedirectListener.IgnoredRequest.Reason]>([])
    func append(_ reason: LoopbackRedirectListener.IgnoredRequest.Reason) { values.withLock { $0.append(reason) } }
}
