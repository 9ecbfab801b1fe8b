import ArgumentParser
import SessionKit
import SessionKitLoopback

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl open URL`: opens a web app of the same tenant signed in as the session's user (Auth0's Native to Web
/// SSO), through a one-use loopback link so that the session transfer token never appears in a command line.
struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Open a web app of the same tenant in the browser, signed in as you (Native to Web SSO).",
        discussion: """
            Trades the refresh token for a single-use session transfer token and opens URL (the web app's login \
            route, or the provider's /authorize for it) with it as session_transfer_token, through a one-use link \
            on 127.0.0.1 ($BROWSER, else xdg-open/open): the token never appears in a browser's command line. The \
            provider must allow this client to create such tokens and the web app's client to accept them.
            Example: sessionctl open https://app.example.com/auth/login
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The web app's login URL (http or https).")
    var url: String

    @Option(
        help:
            "The audience of the exchange, if the provider asks for one (Auth0: urn:<tenant domain>:session_transfer).")
    var transferAudience: String?

    @Option(help: "Seconds to wait for the browser to follow the link (at most the token's minute).")
    var timeout: Int = 60

    func validate() throws {
        guard let target = URL(string: url), let scheme = target.scheme?.lowercased(),
            scheme == "https" || scheme == "http", target.host?.isEmpty == false
        else {
            throw ValidationError("URL must be an absolute http or https URL, such as https://app.example.com/login")
        }
        guard (1...600).contains(timeout) else { throw ValidationError("--timeout must be 1 to 600 seconds") }
    }

    func run() async throws {
        try await reporting(profile: options.profileName) {
            let target = URL(string: url)!
            let transfer = try await SessionContext.make(options).session.sessionTransferToken(
                audience: transferAudience)
            let listener = try await LoopbackRedirectListener.start()
            // The listener's start link answers once with a redirect to the URL that carries the token; nothing
            // comes back to its callback (the web app has its own).
            let request = AuthorizationRequest(
                url: transfer.appended(to: target), redirectURI: listener.redirectURI,
                state: PKCE.randomToken(bytes: 16),
                nonce: "", codeVerifier: Secret(PKCE.randomToken(bytes: 32)), scope: "")
            let start = try listener.startURL(for: request)
            Terminal.err("Opening \(target.absoluteString) signed in. If the browser does not open, visit:")
            Terminal.err("  \(start.absoluteString)")
            let opened = await SystemBrowser.open(start, browser: Environment.value("BROWSER"))
            if !opened { Terminal.err("sessionctl: could not open a browser; open the link above within a minute") }
            let deadline = ContinuousClock.now + .seconds(min(timeout, Int(transfer.expiresAt.timeIntervalSinceNow)))
            while !listener.hasStarted, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
            }
            let started = listener.hasStarted
            await listener.stop()
            guard started else {
                throw SessionKitError(
                    code: .timeout,
                    message: "the browser did not open the link in time, and the session transfer token it carried "
                        + "is no longer usable; run sessionctl open again")
            }
            Terminal.err("Opened.")
        }
    }
}
