import SessionKit

/// The values of one forge's `credential.<URL>.helper` key in one git config file, and what
/// `git-credential configure` makes of them: the decisions, without running git.
///
/// git asks the helpers of every matching `credential.*.helper` entry in the order the config files list them, and an
/// empty value empties the list so far. `configure` therefore leaves the key as its other values, then an empty value
/// (the helpers set before it, such as an unscoped `credential.helper=store`, are not asked, nor told to store the
/// token), then the sessionctl line: what `gh auth setup-git` writes, except that gh replaces every value of the key
/// while this keeps the others, so that `--unconfigure` gives back the config as it was.
///
/// *Ours* is every value that runs sessionctl's `git-credential` (`!` and then a program named `sessionctl`, whatever
/// its folder, and the word `git-credential`: an earlier configure's line, another profile's, or the line the docs
/// once had people write by hand), and the empty value right before each.
struct GitHelperEntries: Equatable {
    /// The key's values, in the order of the config file.
    let values: [String]

    /// Whether `value` is a helper line that runs sessionctl's `git-credential`.
    static func runsSessionctl(_ value: String) -> Bool {
        guard value.hasPrefix("!") else { return false }
        let words = ShellWords.split(String(value.dropFirst()))
        guard words.count >= 2 else { return false }
        return (words[0] == "sessionctl" || words[0].hasSuffix("/sessionctl")) && words[1] == "git-credential"
    }

    /// The helper line for `program` (an absolute path) and `profile`, each quoted for the shell git runs it with.
    static func line(program: String, profile: String) -> String {
        "!" + ShellWord.quoted(program) + " git-credential --profile " + ShellWord.quoted(profile)
    }

    /// Whether any value is ours.
    var hasOurs: Bool { values.contains(where: Self.runsSessionctl) }

    /// The values that are not ours, in order.
    var others: [String] { values.indices.filter { !isOurs(at: $0) }.map { values[$0] } }

    /// The distinct values that are ours.
    private var ours: [String] {
        var seen: [String] = []
        for index in values.indices where isOurs(at: index) && !seen.contains(values[index]) {
            seen.append(values[index])
        }
        return seen
    }

    /// Whether the value at `index` runs sessionctl, or is an empty value right before one that does.
    private func isOurs(at index: Int) -> Bool {
        if Self.runsSessionctl(values[index]) { return true }
        let next = index + 1
        return values[index].isEmpty && next < values.count && Self.runsSessionctl(values[next])
    }

    /// The `git config` arguments, after the option that names the file, that leave `key` with the others where they
    /// are and `appending` after them: none when it holds that already. Each of ours is removed by its exact value
    /// (`--unset-all --fixed-value`, git 2.30 and later), unless one of the others is an empty value too: then every
    /// value is removed and the wanted ones are written again.
    func commands(key: String, appending: [String]) -> [[String]] {
        let wanted = others + appending
        guard values != wanted else { return [] }
        if ours.contains(""), others.contains("") {
            return [["--unset-all", key]] + wanted.map { ["--add", key, $0] }
        }
        return ours.map { ["--unset-all", "--fixed-value", key, $0] } + appending.map { ["--add", key, $0] }
    }

    /// The commands of `configure` with `line`: the others, an empty value, `line`.
    func configuring(key: String, line: String) -> [[String]] { commands(key: key, appending: ["", line]) }

    /// The commands of `configure --unconfigure`: the others alone.
    func unconfiguring(key: String) -> [[String]] { commands(key: key, appending: []) }
}
