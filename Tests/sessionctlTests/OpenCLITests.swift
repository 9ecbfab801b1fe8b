import AuthEmulator
import Foundation
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// `sessionctl open URL` (Native to Web SSO) as a process against a live emulator: the browser command sees only a
/// loopback link, which leads once to the web app's URL with a session transfer token that signs alice in.
@Suite("sessionctl open: a web app opened signed in")
struct OpenCLITests {
    @Test("$BROWSER gets a loopback link without the token; following it signs alice in to the web app, once")
    func opensSignedIn() async throws {
        try await LiveEmulator.with { emulator in
            var cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            #expect(try await cli.signIn().status == 0)
            let arguments = cli.home.appendingPathComponent("arguments.txt")
            let headers = cli.home.appendingPathComponent("headers.txt")
            let (script, _) = try cli.browserScript(
                then: "printf '%s\\n' \"$@\" > '\(arguments.path)'; curl -s -D '\(headers.path)' -o /dev/null \"$1\" "
                    + "&& curl -s -o /dev/null -w '%{http_code} %{redirect_url}\\n' \"$(grep -i '^location:' "
                    + "'\(headers.path)' | tr -d '\\r' | cut -d' ' -f2-)\" >> '\(headers.path)'")
            cli.environment["BROWSER"] = "\(script) %s"
            let result = try await cli.run(["open", Self.webApp(emulator).absoluteString])
            #expect(result.status == 0, "\(result.stderr)")
            let argv = try String(contentsOf: arguments, encoding: .utf8)
            #expect(argv.hasPrefix("http://127.0.0.1:"), "the browser is given the loopback link: \(argv)")
            #expect(!argv.contains("session_transfer_token"), "no token in a command line")
            let followed = try String(contentsOf: headers, encoding: .utf8)
            #expect(followed.contains("session_transfer_token="), "the link leads to the web app with the token")
            #expect(
                followed.contains("302 http://127.0.0.1/callback?code="),
                "the provider signed alice in to the web app: \(followed)")
            #expect(!result.stderr.contains("session_transfer_token"), "\(result.stderr)")
        }
    }

    /// The web app: the emulator's /authorize for the confidential client, which accepts transfer tokens.
    private static func webApp(_ emulator: AuthEmulator) -> URL {
        var web = URLComponents(
            url: emulator.issuer.appendingPathComponent("authorize"), resolvingAgainstBaseURL: false)!
        web.queryItems = [
            .init(name: "client_id", value: AuthEmulator.Client.confidentialID),
            .init(name: "response_type", value: "code"),
            .init(name: "redirect_uri", value: "http://127.0.0.1/callback"), .init(name: "scope", value: "openid"),
            .init(name: "state", value: "web-state"),
        ]
        return web.url!
    }

    /// `sessionctl open` running with a browser that only records the link: the process and the link it printed.
    private static func openWithoutFollowing(_ cli: inout CLI, _ emulator: AuthEmulator) async throws -> (
        CLI.Running, URL
    ) {
        let (script, _) = try cli.browserScript()
        cli.environment["BROWSER"] = "\(script) %s"
        let open = try cli.start(["open", Self.webApp(emulator).absoluteString])
        let shown = try await open.waitForStderr(containing: "/start/", timeout: .seconds(30))
        let line = try #require(shown.split(separator: "\n").first { $0.contains("/start/") })
        return (open, try #require(URL(string: line.trimmingCharacters(in: .whitespaces))))
    }

    @Test("nothing is traded until the browser comes: a link followed after two minutes leads on with a fresh token")
    func tokenMadeWhenTheBrowserComes() async throws {
        try await LiveEmulator.with { emulator in
            var cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            #expect(try await cli.signIn().status == 0)
            let before = try await emulator.controls.requestCounts()[.token]
            let (open, start) = try await Self.openWithoutFollowing(&cli, emulator)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await emulator.controls.requestCounts()[.token] == before, "no exchange before the browser")
            // Longer than a session transfer token lasts: one made up front would be dead by now.
            try await emulator.controls.advanceClock(by: 120)
            let browser = LoopbackBrowser()
            let page = try await browser.get(start)
            #expect(page.status == 303)
            let onward = try #require(page.location)
            #expect(onward.absoluteString.contains("session_transfer_token="))
            let web = try await browser.get(onward)
            #expect(web.status == 302 && web.location?.absoluteString.contains("code=") == true, "\(web.status)")
            let result = try await open.finish()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try await emulator.controls.requestCounts()[.token] == before + 1)
        }
    }

    @Test("the exchange fails when the browser comes (a 503): exit 2, the page says so, the session kept")
    func failedExchangeKeepsSession() async throws {
        try await LiveEmulator.with { emulator in
            var cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            #expect(try await cli.signIn().status == 0)
            let token = try await cli.run(["token"])
            let (open, start) = try await Self.openWithoutFollowing(&cli, emulator)
            try await emulator.controls.inject(.status(503), into: .token)
            let page = try await LoopbackBrowser().get(start)
            #expect(page.text.contains("Sign-in failed"), "\(page.text)")
            let result = try await open.finish()
            #expect(result.status == 2, "\(result.stderr)")
            let after = try await cli.run(["token"])
            #expect(after.status == 0 && after.stdout == token.stdout, "the stored session is the one from before")
        }
    }

    @Test("a URL that is not http(s) is refused with exit 64; without a session, exit 1")
    func refusals() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let bad = try await cli.run(["open", "file:///etc/passwd"])
            #expect(bad.status == 64, "\(bad.stderr)")
            #expect(try await cli.run(["open", "https://app.example.com/login"]).status == 1)
        }
    }
}
