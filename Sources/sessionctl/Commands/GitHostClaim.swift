import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which profile's token `git-credential` may give for git's request, if any: the one rule that its usual path and
/// its fast path (``GitCredentialFastPath``) both follow.
///
/// A profile *claims* a forge's host and port (``GitHost``): its issuer's host and port (a forge that is its own
/// OpenID provider), and every git host saved with `configure --git-host HOST[:PORT]`. A request's port is the one
/// in git's `host=` attribute, else its protocol's default (https 443, http 80). The helper answers only when
/// - the protocol is `https`, or `http` to a loopback host (`localhost`, `127.x.y.z`, `::1`) or with
///   `--allow-http`; never another protocol;
/// - with a profile named (`--profile`, else `SESSIONCTL_PROFILE`), that profile claims the host and port;
/// - with none named, exactly one profile does, counting every saved profile and the default one as the flags and
///   the environment make it (`SESSIONCTL_ISSUER` gives the default profile its issuer's claim).
///
/// A refusal answers git nothing, so git goes on to its next helper or its prompt, and says why on standard error
/// with the command that would change it. Hosts are matched as written (``GitHost``), never resolved.
struct GitHostClaim {
    /// Every profile by name: the saved ones, and the one in force with the flags and the environment over it.
    let profiles: [String: ProfileSettings]
    /// The profile named by `--profile` or `SESSIONCTL_PROFILE`, if one is.
    let named: String?
    /// The profile in force: the named one, else `default`.
    let current: String
    /// Whether plain http to a host that is not loopback may have a token (`--allow-http`).
    let allowsHTTP: Bool

    /// Why the helper gives git no token, and what would change that.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// The rule for `flags`, with the saved profiles from the config file.
    init(_ flags: SettingFlags, allowsHTTP: Bool) throws(Refusal) {
        let file: ConfigFile
        do { file = try ConfigFile.load() } catch { throw Refusal(description: error.message) }
        var profiles = file.profiles
        current = flags.profileName
        profiles[current] = flags.settings(over: file.profiles[current] ?? ProfileSettings())
        self.profiles = profiles
        named = flags.value(.profile)
        self.allowsHTTP = allowsHTTP
    }

    /// The rule over `profiles`, as it is read from the config file and the environment.
    init(profiles: [String: ProfileSettings], named: String?, allowsHTTP: Bool) {
        self.profiles = profiles
        self.named = named
        self.current = named ?? "default"
        self.allowsHTTP = allowsHTTP
    }

    /// `flags` naming the profile that answers `request`, or why none does.
    static func flags(_ flags: SettingFlags, for request: GitCredentialRequest, allowsHTTP: Bool) throws(Refusal)
        -> SettingFlags
    {
        var flags = flags
        flags[.profile] = try GitHostClaim(flags, allowsHTTP: allowsHTTP).profile(for: request)
        return flags
    }

    /// The profile whose token may answer `request`, or why none may.
    func profile(for request: GitCredentialRequest) throws(Refusal) -> String {
        let scheme = request.attributes["protocol"]?.lowercased() ?? ""
        guard let defaultPort = GitHost.defaultPort(of: scheme) else {
            throw Refusal(
                description: "git asks for a credential for the protocol '\(scheme)'; sessionctl gives tokens over "
                    + "https only (and http to this machine, or with --allow-http), so git gets none")
        }
        guard let text = request.attributes["host"], let target = GitHost(text, defaultPort: defaultPort) else {
            let sent = request.attributes["host"].map { "'\($0)'" } ?? "none"
            throw Refusal(
                description: "git's request names no host as HOST or HOST:PORT (it sent \(sent)), so git gets no token")
        }
        if scheme == "http" && !target.isLoopback && !allowsHTTP {
            let key = "credential.http://\(target.authority(scheme: scheme)).helper"
            throw Refusal(
                description: "git asks for a token over plain http to \(target), where the network could read it, so "
                    + "git gets none; use an https remote, or on a network you trust let the helper answer http for "
                    + "that host: git config --global \(ShellWord.quoted(key)) "
                    + ShellWord.quoted("!sessionctl git-credential --allow-http"))
        }
        if let named {
            guard let settings = profiles[named], Self.claims(settings).contains(target) else {
                throw unclaimed(target, profile: named, by: "profile '\(named)' does not claim \(target)")
            }
            return named
        }
        let claiming = profiles.filter { Self.claims($0.value).contains(target) }.keys.sorted()
        switch claiming.count {
        case 1:
            return claiming[0]
        case 0:
            throw unclaimed(target, profile: suggested, by: "no profile claims \(target)")
        default:
            let key = "credential.\(scheme)://\(target.authority(scheme: scheme)).helper"
            let helper = "!sessionctl git-credential --profile " + ShellWord.quoted(claiming[0])
            throw Refusal(
                description: "profiles \(claiming.map { "'\($0)'" }.joined(separator: ", ")) all claim \(target), "
                    + "so git gets no token; name the one for that host in its helper: git config --global "
                    + "\(ShellWord.quoted(key)) \(ShellWord.quoted(helper))")
        }
    }

    /// The host and port `settings` claim: the issuer's, and the saved git hosts (port 443 unless one is named).
    static func claims(_ settings: ProfileSettings) -> Set<GitHost> {
        var hosts = Set((settings.gitHosts ?? []).compactMap { GitHost($0, defaultPort: 443) })
        if let issuer = settings.issuer.flatMap(URL.init(string:)).flatMap(GitHost.init(url:)) {
            hosts.insert(issuer)
        }
        return hosts
    }

    /// The profile to suggest for a host none claims: the current one when it has an issuer, else the only saved
    /// profile with one, else the current one.
    private var suggested: String {
        if profiles[current]?.issuer != nil { return current }
        let configured = profiles.filter { $0.value.issuer != nil }.keys
        return configured.count == 1 ? configured.first ?? current : current
    }

    private func unclaimed(_ target: GitHost, profile: String, by reason: String) -> Refusal {
        Refusal(
            description: "\(reason), so git gets no token for it; to give it the tokens of profile '\(profile)', "
                + "run: sessionctl configure --profile \(ShellWord.quoted(profile)) --git-host "
                + ShellWord.quoted(target.description))
    }
}
