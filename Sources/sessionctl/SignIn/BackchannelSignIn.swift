import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Backchannel sign-in (OpenID CIBA, poll mode only: a terminal has no notification endpoint for ping): ask the provider to have the user approve on their own device, show
/// the binding message they should see there, and poll with a spinner until they decide.
struct BackchannelSignIn {
    let context: SessionContext
    let loginHint: String
    let bindingMessage: String?
    let timeout: Int

    func run() async throws(SessionKitError) -> Credentials {
        let request = try await context.provider.backchannelSignIn(loginHint: loginHint, bindingMessage: bindingMessage)
        Terminal.err("Sign-in request sent for \(Terminal.bold(loginHint)): approve it on your device.")
        if let message = request.bindingMessage {
            Terminal.err("Approve it only if your device shows: \(Terminal.bold(message))")
        }
        let spinner = Spinner(enabled: Terminal.stderrIsTerminal)
        defer { spinner.finish() }
        let limit = min(Double(timeout), request.expiresAt.timeIntervalSinceNow)
        let provider = context.provider
        return try await withDeadline(seconds: limit) { () async throws(SessionKitError) -> Credentials in
            try await provider.pollBackchannelSignIn(request) { spinner.tick() }
        }
    }
}
