import ArgumentParser
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl`: sign in once, then get fresh tokens from scripts, from a terminal.
@main
struct SessionCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessionctl",
        abstract: "Sign in with OAuth 2.0 / OpenID Connect once; stay signed in.",
        discussion: """
            Exit codes: 0 success (for status: signed in, valid or renewable); 1 sign-in required; \
            2 the provider failed or could not be reached (retryable, the session is kept); \
            3 the session store is unavailable or damaged; 4 bad configuration (or a refused scope); \
            5 the provider asks for a stronger sign-in (step-up; the session is kept); 64 bad usage.

            Environment: SESSIONCTL_PROFILE (the profile), SESSIONCTL_ISSUER, SESSIONCTL_CLIENT_ID, \
            SESSIONCTL_CLIENT_SECRET (a confidential client's secret, for this run), SESSIONCTL_CLIENT_AUTH \
            (auto|basic|post), SESSIONCTL_AUDIENCE, SESSIONCTL_SCOPE, SESSIONCTL_STORE (auto|keyring|kernel|file), \
            SESSIONCTL_SESSIONS_DIR (the folder that holds the sessions), SESSIONCTL_DPOP (1: DPoP-bound tokens), \
            SESSIONCTL_CA_FILE (a PEM certificate authority to trust), SSL_CERT_FILE (trusted too), HTTPS_PROXY, \
            HTTP_PROXY and NO_PROXY (as curl reads them; loopback is never proxied), BROWSER, XDG_CONFIG_HOME, \
            XDG_STATE_HOME, NO_COLOR. Flags win over the environment, which wins over the saved profile.

            Examples:
              sessionctl configure --issuer https://TENANT.eu.auth0.com/ --client-id ID
              sessionctl login                      (the browser; --device on a machine without one)
              curl -H "Authorization: Bearer $(sessionctl token)" https://api.example.com/
              sessionctl status --json
            """,
        version: SessionKitVersion.current,
        subcommands: [
            Configure.self, Login.self, Status.self, Token.self, WhoAmI.self, Metadata.self, Refresh.self,
            Logout.self, GitCredential.self, Kubeconfig.self, Open.self,
        ]
    )

    /// Runs the command. `sessionctl token` and `sessionctl git-credential get` with valid stored credentials are
    /// answered before ArgumentParser or anything asynchronous starts: no thread pool, no HTTP client (see
    /// `Benchmarks/cli.sh`). A `token` due for renewal goes on from what its fast path opened and read, still
    /// without ArgumentParser; every other case, including any error the fast path meets, goes through
    /// ArgumentParser's usual path.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "token", let fast = TokenArguments.parse(arguments.dropFirst()) {
            switch Token.printLocalToken(fast) {
            case .printed:
                return
            case .renew(let local):
                do {
                    try await Token.printToken(fast, local: local)
                } catch {
                    Token.exit(withError: error)
                }
                return
            case .usual:
                break
            }
        }
        if arguments.first == "git-credential", let fast = GitCredentialFastPath.parse(arguments.dropFirst()),
            fast.answer()
        {
            return
        }
        await main(arguments)
    }
}
