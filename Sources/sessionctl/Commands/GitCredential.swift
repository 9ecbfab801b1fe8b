import ArgumentParser
import Crypto
import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl git-credential get|store|erase`: a git credential helper that answers with a fresh access token.
///
/// ```sh
/// git config --global credential.https://gitlab.example.com.helper "sessionctl git-credential --profile gitlab"
/// ```
///
/// Never interactive: when a sign-in is needed it says so on standard error and answers nothing, so git goes on to
/// its next helper or its prompt. `store` keeps nothing (the session is the store); `erase`, which git sends after
/// the server refused the token, marks that token stale so that the next `get` renews it (the session is kept).
struct GitCredential: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential",
        abstract: "A git credential helper: answer git's 'get' with a fresh access token.",
        discussion: """
            Configure it for a forge: git config --global credential.https://FORGE.helper \
            "sessionctl git-credential --profile P". Without --profile, the profile whose issuer is on git's host is \
            used, else the default one. git 2.41 and later read password_expiry_utc; git 2.46 and later, which \
            announce capability[]=authtype, get the token as a Bearer credential.
            """
    )

    enum Operation: String, ExpressibleByArgument, CaseIterable {
        case get, store, erase
    }

    @OptionGroup var options: GlobalOptions

    @Option(help: "The username git sends with the token (forges accept any; GitLab and Gitea document oauth2).")
    var username = "oauth2"

    @Option(name: .customLong("min-ttl"), help: "Seconds the token must stay valid for git's request.")
    var minTTL = 60

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
        let flags = Self.flags(options.flags, for: request)
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
                Terminal.outRaw(
                    request.answer(
                        token: credentials.accessToken.unsafeRawValue, username: username,
                        expiresAt: credentials.expiresAt))
            case .store:
                return
            }
        } catch {
            // git reads nothing from standard output, and goes on to its next helper or prompt.
            let advice =
                error.code == .signInRequired
                ? "; sign in with: sessionctl login --profile \(flags.profileName)" : ""
            Terminal.err("sessionctl git-credential: \(error.message)\(advice)")
        }
    }
}

extension GitCredential {
    /// `flags` with, when no profile was named, the profile whose issuer is on the request's host.
    static func flags(_ flags: SettingFlags, for request: GitCredentialRequest) -> SettingFlags {
        var flags = flags
        if flags.profile == nil, let host = request.attributes["host"], let profile = ConfigFile.profile(forHost: host)
        {
            flags.profile = profile
        }
        return flags
    }
}

/// The access token git last reported refused (`erase`), as a digest in the secure store: the next `get` that would
/// answer with it renews instead. Processes share it, and renewing is single-flight across them.
struct StaleToken {
    let store: any SecureStore
    let profile: String

    private var key: String { "sessionctl.git-stale-token." + profile }

    private static func digest(_ token: String) -> String {
        Hex.string(Array(SHA256.hash(data: Data(token.utf8))))
    }

    func mark(_ token: String) throws(SessionKitError) {
        do { try store.setString(Self.digest(token), forKey: key) } catch { throw SessionKitError(storeError: error) }
    }

    func matches(_ token: String) throws(SessionKitError) -> Bool {
        do { return try store.string(forKey: key) == Self.digest(token) } catch {
            throw SessionKitError(storeError: error)
        }
    }

    func clear() throws(SessionKitError) {
        do { try store.deleteItem(forKey: key) } catch { throw SessionKitError(storeError: error) }
    }
}
