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
            Opens a one-use link on 127.0.0.1 ($BROWSER, else xdg-open/open); when the browser follows it, trades \
            the refresh token for a single-use session transfer token and sends the browser on to URL (the web \
            app's login route, or the provider's /authorize for it) with it as session_transfer_token. The token \
            never appears in a browser's command line, and is made only once the browser has come, so the link can \
            wait up to --timeout. The provider must allow this client to create such tokens and the web app's \
            client to accept them.
            Example: sessionctl open https://app.example.com/auth/login
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The web app's login URL (http or https).")
    var url: String

    @Option(
        help:
            "The audience of the exchange, if the provider asks for one (Auth0: urn:<tenant domain>:session_transfer).")
    var transferAudience: String?

    @Option(help: "Seconds to wait for the browser to follow the link.")
    var timeout: Int = 300

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
            let session = try SessionContext.make(options).session
            // Nothing is traded before the browser comes, but a missing session is said at once.
            guard try await session.storedCredentials() != nil else {
                throw SessionKitError(code: .signInRequired, message: "no session is stored; sign in")
            }
            let listener = try await LoopbackRedirectListener.start()
            // The link answers once, with a redirect to the URL carrying a token made as the browser arrives.
            let audience = transferAudience
            let start = listener.startURL { () async throws(SessionKitError) -> URL in
                try await session.sessionTransferToken(audience: audience).appended(to: target)
            }
            Terminal.err("Opening \(target.absoluteString) signed in. If the browser does not open, visit:")
            Terminal.err("  \(start.absoluteString)")
            if await !SystemBrowser.open(start, browser: Environment.value("BROWSER")) {
                Terminal.err("sessionctl: could not open a browser; open the link above in one")
            }
            let deadline = ContinuousClock.now + .seconds(timeout)
            while !listener.hasStarted, listener.startFailure == nil, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
            }
            let (started, failure) = (listener.hasStarted, listener.startFailure)
            await listener.stop()
            if let failure { throw failure }
            guard started else {
                throw SessionKitError(
                    code: .timeout,
                    message: "the browser did not open the link within \(timeout) s; nothing was traded, and the "
                        + "session is kept; run sessionctl open again")
            }
            Terminal.err("Opened.")
        }
    }
}
