import AuthEmulator
import Foundation
import SessionKit
import SessionKitLoopback
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// The listener's HTTP surface: the start link, methods, sizes, and exact redirect URIs.
@Suite("Loopback listener: start link, bounds, exact redirect URIs")
struct LoopbackListenerTests {
    @Test("the start link is short, redirects (303) once to the authorization URL, and is unguessable")
    func startLink() async throws {
        try await LiveEmulator.with { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let listener = try await LoopbackRedirectListener.start()
            defer { Task { await listener.stop() } }
            let browser = LoopbackBrowser()
            #expect(try await browser.get(listener.startURL).status == 404, "no request named yet")
            let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
            let start = try listener.startURL(for: request)
            for secret in [request.state, request.nonce, "code_challenge", "authorize"] {
                #expect(!start.absoluteString.contains(secret))
            }
            #expect(start.host == "127.0.0.1" && start.path.hasPrefix("/start/") && start.path.count >= 25)
            let guessed = try #require(URL(string: "http://127.0.0.1:\(start.port ?? 0)/start/guess"))
            #expect(try await browser.get(guessed).status == 404)
            let first = try await browser.get(start)
            #expect(first.status == 303)
            #expect(first.response.header("Location") == request.url.absoluteString)
            #expect(first.response.header("Cache-Control") == "no-store")
            #expect(first.response.header("Referrer-Policy") == "no-referrer")
            #expect(try await browser.get(start).status == 410, "a second visit learns nothing")
            for secret in [request.state, request.nonce, "code_challenge="] {
                #expect(!"\(request)".contains(secret), "the request's description shows no query")
            }
        }
    }

    @Test("only GET on the callback path; other paths 404; oversized requests 431")
    func bounds() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { Task { await listener.stop() } }
        let browser = LoopbackBrowser()
        #expect(try await browser.send("POST", listener.redirectURI).status == 405)
        #expect(try await browser.send("PUT", listener.redirectURI).status == 405)
        let other = try #require(URL(string: "http://127.0.0.1:\(listener.redirectURI.port ?? 0)/favicon.ico"))
        #expect(try await browser.get(other).status == 404)
        let huge = try #require(
            URL(string: listener.redirectURI.absoluteString + "?state=" + String(repeating: "a", count: 20_000)))
        #expect(try await browser.get(huge).status == 431)
    }

    @Test("a port in use is a configuration error that says so")
    func portInUse() async throws {
        let first = try await LoopbackRedirectListener.start()
        defer { Task { await first.stop() } }
        let port = try #require(first.redirectURI.port)
        await #expect {
            _ = try await LoopbackRedirectListener.start(
                redirectURI: try LoopbackRedirectURI("http://127.0.0.1:\(port)/"))
        } throws: { error in
            let error = error as? SessionKitError
            return error?.code == .invalidConfiguration
                && error?.message.contains("another program uses the port") == true
        }
    }

    @Test("redirect URIs: loopback http only, kept byte for byte")
    func redirectURIParsing() throws {
        for text in [
            "http://127.0.0.1/callback", "http://127.0.0.1:8765/cb/deep?x=1", "http://[::1]:9000/", "http://localhost",
            "http://localhost:8765/callback",
        ] {
            #expect(try LoopbackRedirectURI(text).description == text)
        }
        #expect(try LoopbackRedirectURI("http://127.0.0.1/callback").port == 80)
        #expect(try LoopbackRedirectURI("http://localhost").path == "/")
        for (text, words) in [
            ("https://127.0.0.1:8765/callback", "https"), ("http://example.com/callback", "loopback"),
            ("http://10.0.0.1:8765/callback", "loopback"), ("http://127.0.0.2/callback", "loopback"),
            ("http://user@127.0.0.1/cb", "user name"), ("myapp://callback", "http"),
        ] {
            #expect {
                _ = try LoopbackRedirectURI(text)
            } throws: { error in
                let error = error as? SessionKitError
                return error?.code == .invalidConfiguration && error?.message.contains(words) == true
            }
        }
    }

    @Test("http://localhost:PORT/path: sent byte for byte, served on 127.0.0.1 and ::1, accepted by exact matching")
    func localhostExact() async throws {
        let port = try await LoopbackPort.unused()
        let text = "http://localhost:\(port)/oauth/done"
        let configuration = LiveEmulator.configuration {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            // localhost URIs are matched exactly by the emulator (only IP literals get any port).
            $0.clients = [AuthEmulator.Client(id: "exact", name: "Exact", redirectURIs: [text])]
        }
        try await LiveEmulator.with(configuration) { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration(clientID: "exact"))
            let listener = try await LoopbackRedirectListener.start(redirectURI: try LoopbackRedirectURI(text))
            #expect(listener.redirectURI.absoluteString == text)
            let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
            let start = try listener.startURL(for: request)
            let signIn = Task { try await listener.signIn(request, with: provider, timeout: .seconds(60)) }
            if LoopbackInterface.hasIPv6 {
                // Listening on ::1 too: a stray there is answered (and ignored).
                let v6 = try #require(URL(string: "http://[::1]:\(port)/oauth/done?state=x"))
                #expect(try await LoopbackBrowser().get(v6).status == 400)
            }
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: start)
            #expect(redirectURI(in: authorization) == text)
            let redirect = try await browser.redirect(fromAuthorization: authorization)
            #expect(redirect.absoluteString.hasPrefix(text + "?"))
            let page = try await browser.get(redirect)
            #expect(page.text.contains("Signed in as"))
            _ = try await signIn.value
        }
    }

    @Test("http://[::1]:PORT/callback: a sign-in on the IPv6 loopback", .enabled(if: LoopbackInterface.hasIPv6))
    func ipv6() async throws {
        let port = try await LoopbackPort.unused()
        let text = "http://[::1]:\(port)/callback"
        let configuration = LiveEmulator.configuration {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            $0.clients = [AuthEmulator.Client(id: "v6", name: "V6", redirectURIs: ["http://[::1]/callback"])]
        }
        try await LiveEmulator.with(configuration) { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration(clientID: "v6"))
            let listener = try await LoopbackRedirectListener.start(redirectURI: try LoopbackRedirectURI(text))
            let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
            let start = try listener.startURL(for: request)
            #expect(start.host == "::1" || start.host == "[::1]")
            let signIn = Task { try await listener.signIn(request, with: provider, timeout: .seconds(60)) }
            let page = try await LoopbackBrowser().signIn(startingAt: start)
            #expect(page.text.contains("Signed in as"))
            _ = try await signIn.value
        }
    }

    @Test("no port means port 80, and no ':80' is added to the URI sent")
    func noPort() async throws {
        let text = "http://127.0.0.1/callback"
        try await LiveEmulator.with(LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }) {
            emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let uri = try LoopbackRedirectURI(text)
            let request = try await provider.authorizationRequest(redirectURI: uri.url)
            #expect(redirectURI(in: request.url) == text)
            // Port 80 may be free and bindable here, or not: both outcomes are checked.
            do {
                let listener = try await LoopbackRedirectListener.start(redirectURI: uri)
                #expect(listener.redirectURI.absoluteString == text)
                let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
                let start = try listener.startURL(for: request)
                #expect(start.port == 80)
                let signIn = Task { try await listener.signIn(request, with: provider, timeout: .seconds(60)) }
                let page = try await LoopbackBrowser().signIn(startingAt: start)
                #expect(page.text.contains("Signed in as"))
                _ = try await signIn.value
            } catch let error as SessionKitError {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains("127.0.0.1:80"))
            }
        }
    }

    /// The `redirect_uri` parameter of `url`, decoded.
    private func redirectURI(in url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value
    }
}
