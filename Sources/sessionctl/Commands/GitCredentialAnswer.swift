import ArgumentParser
import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl git-credential [answer] get|store|erase`: a git credential helper that answers with a fresh access
/// token; the default subcommand of ``GitCredential``, so git runs it as `sessionctl git-credential get`.
///
/// ```sh
/// sessionctl git-credential configure --profile gitlab   # writes the helper line below, scoped to the forge
/// git config --global credential.https://gitlab.example.com.helper '!sessionctl git-credential --profile gitlab'
/// ```
///
/// A token goes only to a host and port that the profile claims, over https (``GitHostClaim``). Never interactive:
/// when it gives no token (a host not claimed, a sign-in needed) it says why on standard error and answers nothing,
/// so git goes on to its next helper or its prompt. `store` keeps nothing (the session is the store); `erase`, which
/// git sends after the server refused the token, marks that token stale so that the next `get` renews it (the
/// session is kept).
struct GitCredentialAnswer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "answer",
        abstract: "Answer git's get with a fresh access token (the default: git runs 'sessionctl git-credential get').",
        usage: "sessionctl git-credential [--profile P] [--username U] [--min-ttl N] [--allow-http] get|store|erase",
        discussion: """
            Configure it for one forge with sessionctl git-credential configure [--profile P] [--host H[:PORT]], \
            which writes git config --global credential.https://FORGE.helper '!/path/to/sessionctl git-credential \
            --profile P' (the '!' makes git run it as a command). Never set an unscoped credential.helper to it: \
            every host git talks to would ask it. A token goes only to a host and port that \
            a profile claims: its issuer's own (a forge that is its own provider), or one saved with \
            sessionctl configure --profile P --git-host HOST[:PORT] (port 443 unless named; --no-git-hosts forgets \
            them). With --profile (or SESSIONCTL_PROFILE), that profile must claim git's host and port (the port \
            git names, else 443 for https, 80 for http); without, exactly one profile must. Plain http only to \
            this machine (localhost, 127.x.y.z, ::1), or with --allow-http. Otherwise it answers nothing and says \
            on standard error why and what would change that. git 2.41 and later read password_expiry_utc; \
            git 2.46 and later, which announce capability[]=authtype, get the token as a Bearer credential.
            """
    )

    /// The names of the options that ``GitCredentialFastPath`` reads as well, written once.
    enum OptionName {
        static let username = "username"
        static let minTTL = "min-ttl"
        static let allowHTTP = "allow-http"
    }

    enum Operation: String, ExpressibleByArgument, CaseIterable {
        case get, store, erase
    }

    @OptionGroup var options: GlobalOptions

    @Option(
        name: .customLong(OptionName.username),
        help: "The username git sends with the token (forges accept any; GitLab and Gitea document oauth2).")
    var username = "oauth2"

    @Option(name: .customLong(OptionName.minTTL), help: "Seconds the token must stay valid for git's request.")
    var minTTL = 60

    @Flag(
        name: .customLong(OptionName.allowHTTP),
        help: ArgumentHelp(
            "Answer plain http to a claimed host that is not this machine too (the token crosses the network "
                + "unencrypted; for a network you trust)."))
    var allowHTTP = false

    @Argument(help: "What git asks: get, store or erase.")
    var operation: Operation

    func run() async throws {
        // The fast path may have read git's request already (standard input can be read only once).
        let input = GitCredentialFastPath.request()
        let request: GitCredentialRequest
        do {
            request = try GitCredentialRequest(parsing: input)
        } catch {
            Terminal.err("sessionctl git-credential: \(error)")
            throw ExitCode.validationFailure
        }
        guard operation != .store else { return }  // the session is the store
        let flags: SettingFlags
        do {
            flags = try GitHostClaim.flags(options.flags, for: request, allowsHTTP: allowHTTP)
        } catch {
            // Neither a get nor an erase for a host the profile does not claim: git goes on without this helper.
            Terminal.err("sessionctl git-credential: \(error)")
            return
        }
        do {
            let context = try SessionContext.make(flags, warnOnFallback: false)
            let stale = StaleToken(store: context.storeSelection.store, profile: context.resolved.profile)
            switch operation {
            case .erase:
                let presented = request.attributes["credential"] ?? request.attributes["password"]
                if let presented { try stale.mark(presented) }
            case .get:
                var credentials = try await context.session.credentials(minTTL: TimeInterval(minTTL))
                if try stale.matches(credentials.accessToken.unsafeRawValue) {
                    credentials = try await context.session.renew()
                    try stale.clear()
                }
                guard
                    let answer = request.answer(
                        token: credentials.accessToken.unsafeRawValue, username: username,
                        expiresAt: credentials.expiresAt)
                else {
                    Terminal.err(
                        "sessionctl git-credential: the access token or --username holds a character that git's "
                            + "credential protocol cannot carry (a line break or a control character); nothing was "
                            + "answered")
                    return
                }
                Terminal.outRaw(answer)
            case .store:
                return
            }
        } catch {
            // git reads nothing from standard output, and goes on to its next helper or prompt.
            let advice =
                error.code == .signInRequired
                ? "; sign in with: sessionctl login --profile \(ShellWord.quoted(flags.profileName))" : ""
            Terminal.err("sessionctl git-credential: \(error.messageForCLI(profile: flags.profileName))\(advice)")
        }
    }
}
