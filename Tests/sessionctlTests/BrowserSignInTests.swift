import AuthEmulator
import Foundation
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// `sessionctl login --browser` as a process: stray callbacks, the provider's errors, the page, `$BROWSER`
/// and exact redirect URIs, against a live emulator.
@Suite("sessionctl login --browser, end to end")
struct CLIBrowserSignInTests {
    private static let autoSignIn = LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }

    /// `start`'s authorization URL's `state`, read the way a browser would learn it (from the redirect).
    private func state(of authorization: URL) throws -> String {
        try #require(
            URLComponents(url: authorization, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?
                .value)
    }

    private func redirectURI(of authorization: URL) throws -> String {
        try #require(
            URLComponents(url: authorization, resolvingAgainstBaseURL: false)?.queryItems?.first {
                $0.name == "redirect_uri"
            }?.value)
    }

    @Test("a wrong state, then none: 400, reported once each on stderr, still waiting; the real redirect signs in")
    func strayCallbacks() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--no-open"])
            let start = try await login.startLink()
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: start)
            let callbackBase = try redirectURI(of: authorization)
            for query in ["?state=forged&code=x", "?code=x"] {
                let page = try await browser.get(try #require(URL(string: callbackBase + query)))
                #expect(page.status == 400)
                #expect(page.text.contains("does not belong to the sign-in in progress"))
            }
            _ = try await login.waitForStderr(containing: "without a state")
            #expect(login.process.isRunning, "still waiting for the real redirect")
            let page = try await browser.get(try await browser.redirect(fromAuthorization: authorization))
            #expect(page.text.contains("Signed in as \(AuthEmulator.User.aliceEmail)"))
            let result = try await login.finish()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.components(separatedBy: "ignored a request to the redirect address").count == 3)
            #expect(result.stderr.components(separatedBy: "state does not match").count == 2)
            #expect(!result.stderr.contains(try state(of: authorization)), "the state never reaches stderr")
            #expect(try await cli.run(["status"]).status == 0)
        }
    }

    @Test("step-up: refresh exits 5; login --acr-values asks for them, and the stronger session renews again")
    func stepUp() async throws {
        let multiFactor = "http://schemas.openid.net/pape/policies/2007/06/multi-factor"
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            try await emulator.controls.requireMultiFactor(forUser: AuthEmulator.User.aliceID)
            let refused = try await cli.run(["refresh"])
            #expect(refused.status == 5, "\(refused.output)")
            #expect(refused.stderr.contains("sessionctl login --browser"), "\(refused.output)")
            let login = try cli.start(["login", "--no-open", "--acr-values", multiFactor, "--max-age", "0"])
            let start = try await login.startLink()
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: start)
            let query = URLComponents(url: authorization, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "acr_values" }?.value == multiFactor)
            #expect(query.first { $0.name == "max_age" }?.value == "0")
            let page = try await browser.get(try await browser.redirect(fromAuthorization: authorization))
            #expect(page.text.contains("Signed in as"))
            #expect(try await login.finish().status == 0)
            let renewed = try await cli.run(["refresh"])
            #expect(renewed.status == 0, "the session from the stronger sign-in renews: \(renewed.output)")
        }
    }

    @Test("stray callbacks do not end the sign-in: it ends at its timeout, with exit 2")
    func strayThenTimeout() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let started = ContinuousClock.now
            let login = try cli.start(["login", "--no-open", "--timeout", "3"])
            let start = try await login.startLink()
            let callback = try #require(URL(string: "http://127.0.0.1:\(start.port ?? 0)/callback?state=forged"))
            #expect(try await LoopbackBrowser().get(callback).status == 400)
            let result = try await login.finish()
            #expect(ContinuousClock.now - started >= .seconds(3))
            #expect(result.status == 2)
            #expect(result.stderr.contains("no browser sign-in arrived"))
            #expect(result.stderr.components(separatedBy: "state does not match").count == 2)
        }
    }

    @Test("a huge --timeout is refused with a clear error, not a crash (issue 17, item 6)")
    func hugeTimeout() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--no-open", "--timeout", "10000000000"])
            let result = try await login.finish()
            #expect(login.process.terminationReason == .exit, "a signal means a crash")
            #expect(result.status == 64)
            #expect(result.stderr.contains("--timeout") && result.stderr.contains("86400"), "\(result.stderr)")
        }
    }

    @Test("a redirect port beyond 16 bits is refused with exit 64, for login and configure")
    func redirectPortRange() async throws {
        let cli = try CLI.make()
        defer { cli.cleanUp() }
        for command in [
            ["login", "--no-open"], ["configure", "--issuer", "https://example.com/", "--client-id", "c"],
        ] {
            let result = try await cli.run(command + ["--redirect-port", "70000"])
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("65535"))
        }
    }

    @Test("Cancel at the provider (error=access_denied): exit 2, the provider's error on stderr, the page says so")
    func accessDenied() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--no-open"])
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: try await login.startLink())
            let page = try await browser.get(try await browser.cancelSignIn(at: authorization))
            #expect(page.text.contains("Sign-in failed"))
            #expect(page.text.contains("access_denied"))
            let result = try await login.finish()
            #expect(result.status == 2)
            #expect(result.stderr.contains("access_denied"))
            #expect(try await cli.run(["status"]).status == 1, "nothing was stored")
        }
    }

    @Test("an ID token that fails validation: the page says sign-in failed, nothing is stored")
    func invalidIDToken() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--no-open"])
            let page = try await LoopbackBrowser().signIn(startingAt: try await login.startLink()) {
                LoopbackBrowser.replacing("nonce", with: "injected-nonce", in: $0)
            }
            #expect(page.text.contains("Sign-in failed"))
            #expect(!page.text.contains("Signed in"))
            let result = try await login.finish()
            #expect(result.status != 0)
            #expect(result.stderr.contains("nonce"))
            #expect(try await cli.run(["status"]).status == 1)
        }
    }

    @Test("50 idle connections, then the real redirect: signed in")
    func idleConnections() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--no-open"])
            let start = try await login.startLink()
            let idle = try IdleConnections(count: 50, port: try #require(start.port))
            defer { idle.close() }
            let page = try await LoopbackBrowser().signIn(startingAt: start)
            #expect(page.text.contains("Signed in as"))
            #expect(try await login.finish().status == 0)
        }
    }

    @Test("$BROWSER gets the short start link (no state, nonce or challenge in its arguments) and drives the sign-in")
    func browserVariable() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            var cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let page = cli.home.appendingPathComponent("page.html")
            let (script, record) = try cli.browserScript(then: "curl -s -L -o '\(page.path)' \"$1\"")
            cli.environment["BROWSER"] = "\(script) %s"
            let result = try await cli.run(["login"])
            #expect(result.status == 0, "\(result.stderr)")
            let opened = try String(contentsOf: record, encoding: .utf8)
            #expect(opened.hasPrefix("http://127.0.0.1:") && opened.contains("/start/"))
            for secret in ["state=", "nonce=", "code_challenge"] { #expect(!opened.contains(secret)) }
            #expect(try String(contentsOf: page, encoding: .utf8).contains("Signed in as"))
            #expect(!result.stderr.contains("could not open a browser"))
        }
    }

    @Test("$BROWSER commands that fail: the next is tried, and when all fail the link is printed")
    func browserFallback() async throws {
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            var cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let (script, record) = try cli.browserScript()
            cli.environment["BROWSER"] = "false:\(script)"
            let first = try cli.start(["login"])
            let start = try await first.startLink()
            try await waitFor { FileManager.default.fileExists(atPath: record.path) }
            #expect(try String(contentsOf: record, encoding: .utf8) == start.absoluteString + "\n")
            _ = try await LoopbackBrowser().signIn(startingAt: start)
            #expect(try await first.finish().status == 0)

            cli.environment["BROWSER"] = "false:/nonexistent/browser"
            cli.environment["PATH"] = "/usr/bin:/bin"
            let second = try cli.start(["login"])
            let shown = try await second.waitForStderr(containing: "could not open a browser")
            #expect(shown.components(separatedBy: try await second.startLink().absoluteString).count == 3)
            _ = try await LoopbackBrowser().signIn(startingAt: try await second.startLink())
            #expect(try await second.finish().status == 0)
        }
    }

    @Test("--redirect-uri http://localhost:PORT/path with a provider that matches exactly; configure saves it")
    func exactRedirectURI() async throws {
        let port = try await LoopbackPort.unused()
        let uri = "http://localhost:\(port)/oauth/done"
        let configuration = LiveEmulator.configuration {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            $0.clients = [AuthEmulator.Client(id: AuthEmulator.Client.nativeID, name: "Exact", redirectURIs: [uri])]
        }
        try await LiveEmulator.with(configuration) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            // Refused before anything runs: https, a remote host.
            let https = try await cli.run(["login", "--redirect-uri", "https://127.0.0.1:\(port)/cb"])
            #expect(https.status == 4 && https.stderr.contains("https"))
            let remote = try await cli.run(["configure", "--redirect-uri", "http://example.com/cb"])
            #expect(remote.status == 4 && remote.stderr.contains("loopback"))

            let login = try cli.start(["login", "--no-open", "--redirect-uri", uri])
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: try await login.startLink())
            #expect(try redirectURI(of: authorization) == uri)
            let page = try await browser.get(try await browser.redirect(fromAuthorization: authorization))
            #expect(page.text.contains("Signed in as"))
            #expect(try await login.finish().status == 0)

            // Saved by configure, used by a later login without the flag.
            let configure = try await cli.run([
                "configure", "--issuer", emulator.issuer.absoluteString, "--client-id", AuthEmulator.Client.nativeID,
                "--redirect-uri", uri,
            ])
            #expect(configure.status == 0, "\(configure.stderr)")
            let saved = try String(
                contentsOf: cli.home.appendingPathComponent("config/sessionctl/config.json"), encoding: .utf8)
            #expect(saved.contains("\"redirect_uri\" : \"\(uri)\""))
            let again = try cli.start(["login", "--no-open"])
            let second = try await browser.authorizationURL(fromStart: try await again.startLink())
            #expect(try redirectURI(of: second) == uri)
            _ = try await browser.get(try await browser.redirect(fromAuthorization: second))
            #expect(try await again.finish().status == 0)
        }
    }

    @Test("--redirect-uri http://127.0.0.1/callback (no port): sent without ':80', served on port 80 when it can be")
    func noPort() async throws {
        let uri = "http://127.0.0.1/callback"
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--no-open", "--redirect-uri", uri])
            try await waitFor { !login.process.isRunning || login.stderrText.contains("Waiting for the browser") }
            guard login.process.isRunning else {
                // Port 80 is taken or needs privileges here: a clear configuration error.
                let result = try await login.finish()
                #expect(result.status == 4)
                #expect(result.stderr.contains("127.0.0.1:80"))
                return
            }
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: try await login.startLink())
            #expect(try redirectURI(of: authorization) == uri)
            _ = try await browser.get(try await browser.redirect(fromAuthorization: authorization))
            #expect(try await login.finish().status == 0)
        }
    }

    private func waitFor(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("the condition did not hold in time") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
