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
            // The web app: the emulator's /authorize for the confidential client, which accepts transfer tokens.
            var web = URLComponents(
                url: emulator.issuer.appendingPathComponent("authorize"), resolvingAgainstBaseURL: false)!
            web.queryItems = [
                .init(name: "client_id", value: AuthEmulator.Client.confidentialID),
                .init(name: "response_type", value: "code"),
                .init(name: "redirect_uri", value: "http://127.0.0.1/callback"), .init(name: "scope", value: "openid"),
                .init(name: "state", value: "web-state"),
            ]
            let result = try await cli.run(["open", web.url!.absoluteString])
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
