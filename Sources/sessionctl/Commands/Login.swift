import ArgumentParser
import Foundation
import SessionKit

/// `sessionctl login`: signs in with the browser (PKCE), a device code, or a password, and stores the session.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in and store the session.",
        discussion: "--browser (the default) opens the system browser and listens on 127.0.0.1 for the redirect; "
            + "--device shows a code to enter on another device; --password reads the password from standard input."
    )

    enum Method: String, EnumerableFlag {
        case browser, device, password
    }

    @OptionGroup var options: GlobalOptions

    @Flag(help: "How to sign in.")
    var method: Method = .browser

    @Flag(name: .customLong("no-open"), help: "Print the sign-in URL instead of opening the browser.")
    var noOpen = false

    @Option(name: .customLong("redirect-port"), help: "A fixed port for the browser redirect (default: a free port).")
    var redirectPort: Int?

    @Option(help: "The username, for --password.")
    var username: String?

    @Option(help: "The connection (Auth0's password-realm grant), for --password.")
    var realm: String?

    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (implies --password).")
    var passwordStdin = false

    @Option(help: "Seconds to wait for the browser or device approval.")
    var timeout: Int = 300

    func validate() throws {
        if passwordStdin || method == .password {
            guard let username, !username.isEmpty else {
                throw ValidationError("--password needs --username; the password itself is read from standard input")
            }
        }
    }

    func run() async throws {
        try await reporting {
            let context = try SessionContext.make(options)
            let credentials: Credentials
            switch passwordStdin ? .password : method {
            case .password: credentials = try await passwordSignIn(context)
            case .device: credentials = try await DeviceSignIn(context: context, timeout: timeout).run()
            case .browser:
                let port = redirectPort ?? context.resolved.settings.redirectPort ?? 0
                credentials = try await BrowserSignIn(context: context, port: port, open: !noOpen, timeout: timeout)
                    .run()
            }
            try await context.session.store(credentials)
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

    private func passwordSignIn(_ context: SessionContext) async throws(SessionKitError) -> Credentials {
        guard let line = Terminal.readSecretLine(prompt: "Password for \(username ?? ""): "), !line.isEmpty else {
            throw SessionKitError(
                code: .invalidInput, message: "no password on standard input; pipe it in with --password-stdin")
        }
        return try await context.provider.signIn(username: username ?? "", password: Secret(line), realm: realm)
    }
}
