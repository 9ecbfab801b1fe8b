import ArgumentParser
import SessionKit

/// One git config file, read and written by running `git config` (never by editing the file): the user's global
/// config or the current repository's.
struct GitConfig {
    /// Which config file: `git config --global` or `git config --local`.
    enum Scope: String, EnumerableFlag {
        /// The user's config (`~/.gitconfig`, or `$GIT_CONFIG_GLOBAL`).
        case global
        /// The current repository's `.git/config`.
        case local

        /// The help of `--global` and `--local`.
        static func help(for value: Scope) -> ArgumentHelp? {
            switch value {
            case .global: "Write the user's git config (~/.gitconfig, or $GIT_CONFIG_GLOBAL)."
            case .local: "Write the current repository's .git/config."
            }
        }
    }

    /// The config file.
    let scope: Scope

    /// The option that names the file to `git config`.
    var option: String { "--" + scope.rawValue }

    /// The values of `key` in this file, in order; none when it is not set.
    func values(of key: String) throws(SessionKitError) -> [String] {
        try Self.values(of: key, options: [option])
    }

    /// The values of `key` in every config git reads here (system, global, the repository's), in order.
    static func valuesEverywhere(of key: String) throws(SessionKitError) -> [String] {
        try values(of: key, options: [])
    }

    /// Runs `git config` with each of `commands` (the arguments after the option that names the file) and returns them
    /// as run. When `key` is left with no value, takes its section's header away if git left it behind and nothing else
    /// is in it.
    func run(_ commands: [[String]], leavingEmpty key: String?) throws(SessionKitError) -> [[String]] {
        var done = commands.map { [option] + $0 }
        for arguments in done { try Self.run(arguments) }
        if !commands.isEmpty, let key, let section = Self.section(of: key), try !hasKeys(inSection: section) {
            // Status 128: there is no such section (git 2.39 already took the emptied one away).
            let remove = [option, "--remove-section", section]
            if try Self.run(remove, allowing: [128]).status == 0 { done.append(remove) }
        }
        return done
    }

    /// `credential.https://host` for `credential.https://host.helper`: the section and subsection, which may hold
    /// dots (git splits a key at its first and last dot).
    static func section(of key: String) -> String? {
        guard let dot = key.lastIndex(of: ".") else { return nil }
        return String(key[..<dot])
    }

    /// Whether any key of this file is in `section` (as `section.NAME`; git writes the section's name in lower case,
    /// the subsection as it is).
    private func hasKeys(inSection section: String) throws(SessionKitError) -> Bool {
        let result = try Self.run([option, "--name-only", "--list"], allowing: [1])
        let prefix = section + "."
        return result.stdout.split(separator: "\n").contains { $0.hasPrefix(prefix) }
    }

    /// The values of `key` in the files `options` name (all of them when none), in order.
    private static func values(of key: String, options: [String]) throws(SessionKitError) -> [String] {
        // -z ends each value with a NUL: a value may hold a line break. Status 1: the key is not set.
        let result = try run(options + ["-z", "--get-all", key], allowing: [1])
        guard result.status == 0 else { return [] }
        var values = result.stdout.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
        if values.last == "" { values.removeLast() }
        return values
    }

    /// Runs `git config arguments...`; a status other than 0 or one in `allowing` is an error that quotes git.
    @discardableResult
    private static func run(_ arguments: [String], allowing: Set<Int32> = []) throws(SessionKitError)
        -> ChildProcess.Result
    {
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run("git", ["config"] + arguments)
        } catch {
            throw SessionKitError(
                code: .invalidConfiguration, message: "\(error); install git, or put the folder it is in on PATH")
        }
        guard result.status == 0 || allowing.contains(result.status) else {
            let said = result.stderr.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }.joined(
                separator: " ")
            var advice = "check that git config is writable"
            if arguments.first == "--local" {
                advice = "run it inside the repository, or write the user's config with --global"
            }
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "\(command(arguments)) failed (status \(result.status)\(said.isEmpty ? "" : ": \(said)")); "
                    + advice)
        }
        return result
    }

    /// `git config arguments...` as a line to paste in a POSIX shell.
    static func command(_ arguments: [String]) -> String {
        (["git", "config"] + arguments.map(ShellWord.quoted)).joined(separator: " ")
    }
}
