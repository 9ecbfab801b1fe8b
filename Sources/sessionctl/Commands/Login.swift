import ArgumentParser
import SessionKit
import SessionKitLoopback

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl login`: signs in with the browser (PKCE), a device code, a password, or an approval on the user's own
/// device (backchannel, OpenID CIBA), and stores the session.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in and store the session.",
        discussion: "--browser (the default) opens a short link in $BROWSER (else xdg-open/open) and listens on "
            + "127.0.0.1 (or the --redirect-uri host) for the redirect; the browser's page says how the sign-in ended; "
            + "--device shows a code to enter on another device; --password reads the password from standard input; "
            + "--backchannel --login-hint USER asks the provider to have that user approve on their own device "
            + "(OpenID CIBA, poll mode only: a terminal has no notification endpoint a provider could ping; a "
            + "confidential client). "
            + "A provider that requires pushed authorization requests (RFC 9126) gets one; --par pushes anyway.\n\n"
            + "Examples: sessionctl login; sessionctl login --device; "
            + "printf %s \"$PASSWORD\" | sessionctl login --password-stdin --username alice@example.com; "
            + "sessionctl login --backchannel --login-hint alice@example.com --binding-message 'Deploy 42'"
    )

    enum Method: String, EnumerableFlag {
        case browser, device, password, backchannel
    }

    @OptionGroup var options: GlobalOptions

    @Flag(help: "How to sign in.")
    var method: Method = .browser

    @Flag(name: .customLong("no-open"), help: "Print the sign-in URL instead of opening the browser.")
    var noOpen = false

    @OptionGroup var redirect: RedirectOptions

    @Option(help: "The username, for --password.")
    var username: String?

    @Option(help: "The connection (Auth0's password-realm grant), for --password.")
    var realm: String?

    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (implies --password).")
    var passwordStdin = false

    @Option(
        name: .customLong("login-hint"),
        help: "Who approves a --backchannel sign-in on their own device, as the provider knows them (email, user id).")
    var loginHint: String?

    @Option(
        name: .customLong("binding-message"),
        help: ArgumentHelp(
            "A short text shown here and on the user's device with a --backchannel sign-in.",
            discussion: "Providers take letters, digits, spaces and +-_.,:# up to about 64 characters."))
    var bindingMessage: String?

    @Option(help: "Seconds to wait for the browser or device approval.")
    var timeout: Int = 300

    @Option(
        name: .customLong("acr-values"),
        help: "A stronger sign-in the provider asked for (step-up): its acr_values, space-separated; browser only.")
    var acrValues: String?

    @Option(
        name: .customLong("max-age"),
        help: "Sign in again unless the last sign-in is at most this many seconds old (step-up); browser only.")
    var maxAge: Int?

    @Flag(
        name: .customLong("par"),
        help: ArgumentHelp(
            "Push the sign-in's parameters to the provider first (a pushed authorization request, RFC 9126), even "
                + "where it does not require it; browser only.",
            discussion: "The provider's page then carries only a short-lived request_uri; with --no-open, the push "
                + "is made when the printed link is opened."))
    var par = false

    func validate() throws {
        if passwordStdin && options.clientSecretStdin {
            throw ValidationError(
                "--password-stdin and --client-secret-stdin both read standard input; give the secret with "
                    + "--client-secret-file or save it with `sessionctl configure` first")
        }
        guard (1...86_400).contains(timeout) else {
            throw ValidationError("--timeout is \(timeout) seconds; give between 1 and 86400 (a day)")
        }
        if acrValues != nil || maxAge != nil {
            guard method == .browser && !passwordStdin else {
                throw ValidationError("--acr-values and --max-age need the browser sign-in; leave out --\(method)")
            }
            if let maxAge, !(0...1_000_000_000).contains(maxAge) {
                throw ValidationError("--max-age is \(maxAge); give a number of seconds from 0 to 1000000000")
            }
        }
        if par, method != .browser || passwordStdin {
            throw ValidationError("--par needs the browser sign-in; leave out --\(passwordStdin ? .password : method)")
        }
        if method == .backchannel && !passwordStdin {
            guard let loginHint, !loginHint.isEmpty else {
                throw ValidationError("--backchannel needs --login-hint: who is to approve the sign-in on their device")
            }
        } else if loginHint != nil || bindingMessage != nil {
            throw ValidationError("--login-hint and --binding-message need --backchannel")
        }
        if passwordStdin || method == .password {
            guard let username, !username.isEmpty else {
                throw ValidationError("--password needs --username; the password itself is read from standard input")
            }
        }
    }

    func run() async throws {
        try await reporting(profile: options.profileName) {
            let context = try SessionContext.make(options)
            let credentials: Credentials
            let chosen = passwordStdin ? .password : method
            switch chosen {
            case .password: credentials = try await passwordSignIn(context)
            case .device: credentials = try await DeviceSignIn(context: context, timeout: timeout).run()
            case .backchannel:
                credentials = try await BackchannelSignIn(
                    context: context, loginHint: loginHint ?? "", bindingMessage: bindingMessage, timeout: timeout
                ).run()
            case .browser:
                // Stored by the sign-in itself, before the browser's page says "Signed in".
                credentials = try await BrowserSignIn(
                    context: context, redirect: try chosenRedirect(over: context.resolved.settings), open: !noOpen,
                    timeout: timeout, stepUp: stepUp, pushed: par
                ).run()
            }
            if chosen != .browser { try await context.session.storeReplacingUnreadable(credentials) }
            let who = credentials.idTokenClaims.map { $0.email ?? $0.name ?? $0.subject ?? "" } ?? ""
            Terminal.out(
                "\(Terminal.good("Signed in")) \(who.isEmpty ? "" : "as \(who) ")(profile '\(context.resolved.profile)')."
            )
            Terminal.out("Access token valid until \(Terminal.describe(expiry: credentials.expiresAt, now: Date()))")
            if !credentials.canRenew {
                Terminal.out(
                    Terminal.warn("No refresh token was issued: add offline_access to the scope to stay signed in."))
            }
        }
    }

    /// What `--acr-values` and `--max-age` ask for, if either was given.
    private var stepUp: StepUpChallenge? {
        guard acrValues != nil || maxAge != nil else { return nil }
        return StepUpChallenge(
            acrValues: (acrValues ?? "").split(separator: " ").map(String.init), maxAge: maxAge)
    }

    /// The redirect: this command's `--redirect-uri` or `--redirect-port`, else the profile's, else a free port.
    private func chosenRedirect(over settings: ProfileSettings) throws(SessionKitError) -> BrowserSignIn.Redirect {
        if let uri = redirect.redirectURI { return .uri(try LoopbackRedirectURI(uri)) }
        if let port = redirect.redirectPort { return .port(port) }
        return try .saved(in: settings)
    }

    private func passwordSignIn(_ context: SessionContext) async throws(SessionKitError) -> Credentials {
        guard let line = Terminal.readSecretLine(prompt: "Password for \(username ?? ""): "), !line.isEmpty else {
            throw SessionKitError(
                code: .invalidInput, message: "no password on standard input; pipe it in with --password-stdin")
        }
        do {
            return try await context.provider.signIn(username: username ?? "", password: Secret(line), realm: realm)
        } catch let error where error.oauthError == "invalid_grant" {
            // The provider refused the credentials: a failed sign-in (exit 1), not a provider failure that a script
            // should retry (exit 2) with the same wrong password. Nothing stored was touched.
            throw SessionKitError(
                code: .signInRequired, message: "wrong username or password; check both and sign in again",
                oauthError: error.oauthError, oauthErrorDescription: error.oauthErrorDescription,
                httpStatus: error.httpStatus, underlyingError: error)
        }
    }
}
