import AuthEmulator
import Foundation
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// `sessionctl login --browser` with pushed authorization requests (RFC 9126), as a process against a live
/// emulator: pushed when the provider requires it or with `--par`, the browser carrying only `client_id` and
/// `request_uri`, and an expired `request_uri` or a refused push failing clearly with the stored session kept.
@Suite("sessionctl login with pushed authorization requests")
struct PushedSignInCLITests {
    private static func configuration(requiredForNative: Bool = false, lifetime: Double = 60)
        -> AuthEmulator.Configuration
    {
        LiveEmulator.configuration { configuration in
            configuration.autoSignInUser = AuthEmulator.User.aliceEmail
            configuration.lifetimes.pushedRequest = lifetime
            configuration.clients = configuration.clients.map { client in
                var client = client
                client.requiresPushedAuthorizationRequests =
                    requiredForNative && client.id == AuthEmulator.Client.nativeID
                return client
            }
        }
    }

    private static func queryNames(_ url: URL) -> Set<String> {
        Set(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? [])
    }

    @Test("required by the provider: $BROWSER follows a link that carries only client_id and request_uri")
    func requiredByProvider() async throws {
        try await LiveEmulator.with(Self.configuration(requiredForNative: true)) { emulator in
            var cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let page = cli.home.appendingPathComponent("page.html")
            let headers = cli.home.appendingPathComponent("headers.txt")
            let (script, _) = try cli.browserScript(then: "curl -s -L -D '\(headers.path)' -o '\(page.path)' \"$1\"")
            cli.environment["BROWSER"] = "\(script) %s"
            let result = try await cli.run(["login"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try String(contentsOf: page, encoding: .utf8).contains("Signed in as"))
            let followed = try String(contentsOf: headers, encoding: .utf8)
            let toProvider = try #require(
                followed.split(whereSeparator: \.isNewline).first {
                    $0.lowercased().hasPrefix("location:") && $0.contains("/authorize")
                }, "\(followed)")
            #expect(toProvider.contains("request_uri=urn"), "\(toProvider)")
            for parameter in ["state=", "nonce=", "code_challenge", "redirect_uri"] {
                #expect(!toProvider.contains(parameter), "\(parameter) travels in the push, not the browser")
            }
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 1)
            #expect(try await cli.run(["status"]).status == 0)
        }
    }

    @Test(
        "--par pushes where the provider does not require it; without it, nothing is pushed; --par --device is refused")
    func parFlag() async throws {
        try await LiveEmulator.with(Self.configuration()) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--no-open", "--par"])
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: try await login.startLink())
            #expect(Self.queryNames(authorization) == ["client_id", "request_uri"])
            let page = try await browser.get(try await browser.redirect(fromAuthorization: authorization))
            #expect(page.text.contains("Signed in as"))
            #expect(try await login.finish().status == 0)
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 1)

            let plain = try cli.start(["login", "--no-open"])
            let unpushed = try await browser.authorizationURL(fromStart: try await plain.startLink())
            #expect(Self.queryNames(unpushed).contains("code_challenge"))
            _ = try await browser.get(try await browser.redirect(fromAuthorization: unpushed))
            #expect(try await plain.finish().status == 0)
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 1)

            let device = try await cli.run(["login", "--device", "--par"])
            #expect(device.status == 64)
            #expect(device.stderr.contains("--par needs the browser sign-in"), "\(device.stderr)")
        }
    }

    @Test("--no-open: a link opened after a request_uri's lifetime signs in, since the push waits for the browser")
    func lateLinkSignsIn() async throws {
        try await LiveEmulator.with(Self.configuration(requiredForNative: true, lifetime: 30)) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--no-open"])
            let start = try await login.startLink()
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 0)
            try await emulator.controls.advanceClock(by: 31)
            let page = try await LoopbackBrowser().signIn(startingAt: start)
            #expect(page.text.contains("Signed in as"), "\(page.text)")
            let result = try await login.finish()
            #expect(result.status == 0, "\(result.output)")
            #expect(try await emulator.controls.requestCounts()[.pushedAuthorization] == 1)
        }
    }

    @Test("a request_uri that expired before the browser reached the provider: exit 2, says so, session kept")
    func expiredKeepsSession() async throws {
        try await LiveEmulator.with(Self.configuration(lifetime: 30)) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let before = try await cli.run(["token"])
            let login = try cli.start(["login", "--no-open", "--par"])
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: try await login.startLink())
            try await emulator.controls.advanceClock(by: 31)
            let page = try await browser.get(try await browser.redirect(fromAuthorization: authorization))
            #expect(!page.text.contains("Signed in as"))
            let result = try await login.finish()
            #expect(result.status == 2, "\(result.output)")
            #expect(result.stderr.contains("invalid_request_uri"), "\(result.stderr)")
            #expect(result.stderr.contains("start the sign-in again"), "\(result.stderr)")
            let after = try await cli.run(["token"])
            #expect(after.status == 0)
            #expect(after.stdout == before.stdout, "the stored session is the one from before")
        }
    }

    @Test("a push refused with 400: exit 2 before any browser opens, a clear message, the stored session kept")
    func refusedPushKeepsSession() async throws {
        try await LiveEmulator.with(Self.configuration()) { emulator in
            var cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let before = try await cli.run(["token"])
            let (script, record) = try cli.browserScript()
            cli.environment["BROWSER"] = "\(script) %s"
            try await emulator.controls.inject(.status(400), into: .pushedAuthorization)
            let result = try await cli.run(["login", "--par"])
            #expect(result.status == 2, "\(result.output)")
            #expect(result.stderr.contains("refused the pushed authorization request"), "\(result.stderr)")
            #expect(result.stderr.contains("a stored session is kept"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: record.path), "no browser was opened")
            let after = try await cli.run(["token"])
            #expect(after.status == 0)
            #expect(after.stdout == before.stdout)
        }
    }

    @Test("--par with a provider that publishes no PAR endpoint: exit 4 before anything is sent, and what to do")
    func providerWithoutEndpoint() async throws {
        let provider = try await ProviderStandIn.start()
        defer { provider.stop() }
        let cli = try provider.cli()
        defer { cli.cleanUp() }
        let login = try await cli.run(["login", "--par", "--no-open", "--timeout", "5"])
        #expect(login.status == 4, "\(login.output)")
        #expect(login.stderr.contains("sign in without --par"), "\(login.stderr)")
        #expect(!login.stderr.contains("/start/"), "no sign-in link was offered")
    }

    @Test("configure --dpop with login --par: the push carries the profile's proof (nonce demanded), tokens are bound")
    func dpop() async throws {
        let configuration = LiveEmulator.configuration {
            $0.autoSignInUser = AuthEmulator.User.aliceEmail
            $0.dpopNonceRequired = true
        }
        try await LiveEmulator.with(configuration) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let configured = try await cli.run([
                "configure", "--dpop", "--issuer", emulator.issuer.absoluteString, "--client-id",
                AuthEmulator.Client.nativeID,
            ])
            #expect(configured.status == 0, "\(configured.stderr)")
            let login = try cli.start(["login", "--no-open", "--par"])
            let browser = LoopbackBrowser()
            let authorization = try await browser.authorizationURL(fromStart: try await login.startLink())
            #expect(Self.queryNames(authorization) == ["client_id", "request_uri"])
            _ = try await browser.get(try await browser.redirect(fromAuthorization: authorization))
            let result = try await login.finish()
            #expect(result.status == 0, "\(result.output)")
            let counts = try await emulator.controls.requestCounts()
            #expect(counts[.pushedAuthorization] == 2, "use_dpop_nonce, then the push")
            let token = try await cli.run(["token"])
            let claims = try JWT(decoding: token.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(claims.claims["cnf"]?["jkt"]?.stringValue != nil, "the token is bound to the profile's key")
        }
    }
}
