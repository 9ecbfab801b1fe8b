import SessionKit
import SessionKitLoopback
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Browser sign-in with PKCE: listen on loopback, open a short start link (with `$BROWSER`, else the system
/// opener), wait for the redirect whose `state` matches, exchange the code, store the session, and only then
/// tell the browser how it ended.
struct BrowserSignIn {
    /// Where the redirect comes back to.
    enum Redirect {
        /// `http://127.0.0.1:<port>/callback`, on a free port when 0.
        case port(Int)
        /// Exactly this URI.
        case uri(LoopbackRedirectURI)

        /// The profile's saved redirect (`configure --redirect-uri`, else `--redirect-port`), else a free port.
        static func saved(in settings: ProfileSettings) throws(SessionKitError) -> Redirect {
            if let saved = settings.redirectURI { return .uri(try LoopbackRedirectURI(saved)) }
            return .port(settings.redirectPort ?? 0)
        }
    }

    let context: SessionContext
    let redirect: Redirect
    let open: Bool
    let timeout: Int
    /// What a step-up asks for (`--acr-values`, `--max-age`), if anything.
    var stepUp: StepUpChallenge?
    /// Whether to push the sign-in's parameters to the provider first where it does not require it (`--par`).
    var pushed = false

    /// Signs in and stores the session before the browser's page says "Signed in".
    func run() async throws(SessionKitError) -> Credentials {
        let configuration = LoopbackRedirectListener.Configuration(onIgnoredRequest: Self.reporter())
        let listener =
            switch redirect {
            case .port(let port): try await LoopbackRedirectListener.start(port: port, configuration: configuration)
            case .uri(let uri): try await LoopbackRedirectListener.start(redirectURI: uri, configuration: configuration)
            }
        let provider = pushed ? context.pushingAuthorization() : context.provider
        // A link the user opens by hand may wait for minutes, longer than a pushed request's `request_uri` lasts:
        // its push is made when the browser arrives. An opened browser comes at once, so a push refused for the
        // configuration is reported before any browser window opens.
        let deferringPush = !open
        do {
            let request =
                if let stepUp {
                    try await provider.authorizationRequest(
                        redirectURI: listener.redirectURI, stepUp: stepUp, deferringPush: deferringPush)
                } else {
                    try await provider.authorizationRequest(
                        redirectURI: listener.redirectURI, deferringPush: deferringPush)
                }
            let start =
                deferringPush
                ? try listener.startURL(for: request, pushingWith: provider) : try listener.startURL(for: request)
            announce(start, redirectURI: listener.redirectURI)
            let session = context.session
            return try await listener.signIn(request, with: provider, timeout: .seconds(timeout)) {
                try await session.storeReplacingUnreadable($0)
            }
        } catch {
            await listener.stop()
            throw error
        }
    }

    /// Prints the start link, and opens it in the background (a terminal browser runs until it is quit);
    /// when every browser command fails, says so and asks the user to open the link.
    private func announce(_ start: URL, redirectURI: URL) {
        Terminal.err(
            open
                ? "Opening your browser to sign in. If it does not open, visit:"
                : "Open this URL in a browser to sign in:")
        Terminal.err("  \(start.absoluteString)")
        Terminal.err(Terminal.dim("Waiting for the browser on \(redirectURI.absoluteString) ..."))
        guard open else { return }
        let browser = Environment.value("BROWSER")
        let tried = browser == nil ? "xdg-open/open" : "$BROWSER and xdg-open/open"
        Task.detached {
            if await !SystemBrowser.open(start, browser: browser) {
                Terminal.err(
                    "sessionctl: could not open a browser (\(tried) failed); open this URL in a browser to sign in:")
                Terminal.err("  \(start.absoluteString)")
            }
        }
    }

    /// Reports each ignored callback once on standard error; after ten, says that it stops reporting them.
    private static func reporter() -> @Sendable (LoopbackRedirectListener.IgnoredRequest) -> Void {
        let count = Atomic(0)
        return { ignored in
            let seen = count.add(1, ordering: .relaxed).newValue
            if seen <= 10 {
                Terminal.err("sessionctl: warning: \(ignored); still waiting for the real sign-in")
            } else if seen == 11 {
                Terminal.err(
                    "sessionctl: warning: more stray requests to the redirect address; no longer reporting them")
            }
        }
    }
}
