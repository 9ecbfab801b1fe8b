import SessionKit

/// The git hosts a profile claims by `config.json` (`configure --git-host`), as `git-credential configure` adds and
/// removes them; the issuer's own host and port are claimed without an entry (``GitHostClaim``).
enum SavedGitHosts {
    /// Saves `host` as a git host of `profile` unless the profile claims it already (its issuer's, or saved), and
    /// says whether it saved it.
    static func add(_ host: GitHost, profile: String) throws(SessionKitError) -> Bool {
        var file = try ConfigFile.load()
        var settings = file.profiles[profile] ?? ProfileSettings()
        // The issuer from the environment counts as it does when git runs the helper.
        guard !GitHostClaim.claims(SettingFlags([.profile: profile]).settings(over: settings)).contains(host) else {
            return false
        }
        settings.gitHosts = (settings.gitHosts ?? []) + [host.description]
        file.profiles[profile] = settings
        try file.save()
        return true
    }

    /// Whether `host` is one of `profile`'s saved git hosts.
    static func contains(_ host: GitHost, profile: String) throws(SessionKitError) -> Bool {
        let saved = try ConfigFile.load().profiles[profile]?.gitHosts ?? []
        return saved.contains { GitHost($0, defaultPort: 443) == host }
    }

    /// Removes `host` from `profile`'s saved git hosts, and says whether it was there.
    static func remove(_ host: GitHost, profile: String) throws(SessionKitError) -> Bool {
        var file = try ConfigFile.load()
        guard var settings = file.profiles[profile], let saved = settings.gitHosts else { return false }
        let kept = saved.filter { GitHost($0, defaultPort: 443) != host }
        guard kept.count != saved.count else { return false }
        settings.gitHosts = kept.isEmpty ? nil : kept
        file.profiles[profile] = settings
        try file.save()
        return true
    }
}
