import ArgumentParser
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl git-credential configure`: sets git up to ask this sessionctl for one forge's credentials, as
/// `gh auth setup-git` and `git credential-oauth configure` do; `--unconfigure` takes back exactly that.
///
/// It runs `git config` (never edits a file itself) to give the forge's key, `credential.<URL>.helper`, an empty value
/// and then `!<this sessionctl's absolute path> git-credential --profile P` (``GitHelperEntries`` says why, and what
/// it keeps), and saves the forge's host as a git host of the profile when it is not the issuer's own
/// (``GitHostClaim``). It never writes an unscoped `credential.helper`.
struct GitCredentialConfigure: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "configure",
        abstract: "Set git up to ask sessionctl for a forge's credentials; --unconfigure takes that back.",
        discussion: """
            Writes, with git config, an empty credential.https://HOST.helper (git then skips the helpers set \
            before it, such as credential.helper=store, for this forge only) and then \
            '!/absolute/path/to/sessionctl git-credential --profile P', and prints what it wrote. A second run \
            writes nothing new; it replaces another sessionctl helper line for the forge. The forge is the \
            profile's issuer (a forge that is its own provider) unless --host names another, which is then saved \
            as a git host the profile claims (sessionctl configure --git-host). --unconfigure removes exactly \
            those entries, and that git host unless another git config still asks sessionctl for it.

            Example, for GitLab signing in with its own OpenID Connect:

              sessionctl configure --profile gitlab \\
                  --issuer https://gitlab.example.com --client-id ID
              sessionctl login --profile gitlab
              sessionctl git-credential configure --profile gitlab
              git clone https://gitlab.example.com/group/project.git
            """
    )

    /// `--profile`.
    @Option(help: "The profile whose tokens git gets (env SESSIONCTL_PROFILE; default: default).")
    var profile: String?

    /// `--host`: the forge, else the issuer's.
    @Option(
        help: ArgumentHelp(
            "The forge: HOST[:PORT] (https), or its URL; http only for this machine (default: the profile's issuer).",
            valueName: "HOST[:PORT]|URL"))
    var host: String?

    /// `--global` or `--local`.
    @Flag var scope: GitConfig.Scope = .global

    /// `--unconfigure`.
    @Flag(help: "Remove what configure wrote for the forge, and the git host it saved for the profile.")
    var unconfigure = false

    func validate() throws {
        if let profile { try ProfileName.validate(profile) }
        if let host {
            do { _ = try GitForge(host) } catch { throw ValidationError(error.description) }
        }
    }

    func run() async throws {
        let flags = SettingFlags(profile.map { [.profile: $0] } ?? [:])
        try await reporting(profile: flags.profileName) {
            let name = flags.profileName
            let resolved = try flags.resolved()
            let forge = try self.forge(issuer: resolved.settings.issuer, profile: name)
            let config = GitConfig(scope: scope)
            let entries = GitHelperEntries(values: try config.values(of: forge.helperKey))
            if unconfigure {
                try remove(entries, forge: forge, profile: name, config: config)
            } else {
                // A helper for a profile that cannot sign in would never answer: say so now.
                _ = try resolved.providerConfiguration()
                try write(entries, forge: forge, profile: name, config: config)
            }
        }
    }

    /// The forge `--host` names, else the issuer's.
    private func forge(issuer: String?, profile: String) throws(SessionKitError) -> GitForge {
        do throws(GitForge.Invalid) {
            if let host { return try GitForge(host) }
            guard let issuer, let url = URL(string: issuer) else {
                throw GitForge.Invalid(
                    description: "profile '\(profile)' has no issuer to take the forge from; name the forge with "
                        + "--host HOST, or configure the profile first: sessionctl configure --profile "
                        + "\(ShellWord.quoted(profile)) --issuer URL --client-id ID")
            }
            return try GitForge(issuer: url)
        } catch {
            throw SessionKitError(code: .invalidConfiguration, message: error.description)
        }
    }

    /// Writes the helper for `forge` (unless it is there already), saves the git host, and prints what it did.
    private func write(_ entries: GitHelperEntries, forge: GitForge, profile: String, config: GitConfig)
        throws(SessionKitError)
    {
        guard let program = RunningProgram.path else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "cannot tell where this sessionctl is installed; run it by its absolute path, such as "
                    + "/usr/local/bin/sessionctl git-credential configure")
        }
        let line = GitHelperEntries.line(program: program, profile: profile)
        let commands = try config.run(entries.configuring(key: forge.helperKey, line: line), leavingEmpty: nil)
        if commands.isEmpty {
            Terminal.out(
                "git already asks sessionctl (profile '\(profile)') for \(forge) credentials: the \(scope) git config "
                    + "has \(forge.helperKey) = '' and then \(ShellWord.quoted(line)); nothing was written")
        } else {
            Terminal.out("Wrote the \(scope) git config: git asks sessionctl (profile '\(profile)') for \(forge):")
            for command in commands { Terminal.out("  " + GitConfig.command(command)) }
            Terminal.out(
                "(The empty value keeps git from asking, or giving the token to, the helpers set before it for this "
                    + "forge, such as credential.helper=store.)")
        }
        if try SavedGitHosts.add(forge.host, profile: profile) {
            Terminal.out(
                "Saved git host \(forge.host) for profile '\(profile)' in \(ConfigFile.filePath): the helper gives "
                    + "its tokens only to hosts the profile claims")
        }
        Terminal.out("Undo with: " + undo(forge, profile: profile))
    }

    /// Removes what ``write(_:forge:profile:config:)`` wrote, and prints what it did.
    private func remove(_ entries: GitHelperEntries, forge: GitForge, profile: String, config: GitConfig)
        throws(SessionKitError)
    {
        if entries.hasOurs {
            let commands = try config.run(
                entries.unconfiguring(key: forge.helperKey),
                leavingEmpty: entries.others.isEmpty ? forge.helperKey : nil)
            Terminal.out("Removed the sessionctl helper for \(forge) from the \(scope) git config:")
            for command in commands { Terminal.out("  " + GitConfig.command(command)) }
        } else {
            Terminal.out("The \(scope) git config has no sessionctl helper for \(forge); nothing was removed there")
        }
        guard try SavedGitHosts.contains(forge.host, profile: profile) else { return }
        if GitHelperEntries(values: try GitConfig.valuesEverywhere(of: forge.helperKey)).hasOurs {
            Terminal.out(
                "Kept git host \(forge.host) for profile '\(profile)': another git config here still asks sessionctl "
                    + "for \(forge)")
        } else if try SavedGitHosts.remove(forge.host, profile: profile) {
            Terminal.out(
                "Forgot git host \(forge.host) for profile '\(profile)' (sessionctl configure --profile "
                    + "\(ShellWord.quoted(profile)) --git-host \(ShellWord.quoted(forge.host.description)) claims it "
                    + "again)")
        }
    }

    /// The command that takes this configuration back.
    private func undo(_ forge: GitForge, profile: String) -> String {
        "sessionctl git-credential configure --unconfigure --profile \(ShellWord.quoted(profile)) --host "
            + ShellWord.quoted(forge.option) + (scope == .local ? " --local" : "")
    }
}
