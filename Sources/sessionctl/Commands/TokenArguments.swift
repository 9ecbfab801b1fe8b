/// The arguments of `sessionctl token` as plain values: what ``Token`` parsed, or what ``parse(_:)`` read without
/// ArgumentParser for the fast path (a valid stored token, and the renewal that follows when it is due).
///
/// ArgumentParser finds a command's options by reflection and dynamic casts, and in a binary this size
/// the first casts scan every protocol conformance in it: about three quarters of the instructions of a
/// `sessionctl token` run (see `Benchmarks/cli.sh`). This reads only the options `token` documents, in their
/// `--name value` and `--name=value` forms: its own and the settings options (``SettingOption``, the list
/// ``GlobalOptions`` declares). Anything else (help, a typo, a bad value) makes `parse` return `nil`, and
/// ArgumentParser then parses and reports as usual.
struct TokenArguments {
    /// The settings options given.
    var options: [SettingOption: String] = [:]
    var minTTL = 60
    var idToken = false
    var json = false
    var output = Token.Format.plain
    /// The client secret's flags; never read by ``parse(_:)``.
    var clientSecretFile: String?
    var clientSecretStdin = false
    /// `--dpop-proof METHOD URL`; never read by ``parse(_:)``.
    var dpopProof: [String] = []
    /// `--dpop-nonce`; never read by ``parse(_:)``.
    var dpopNonce: String?

    /// The arguments after `token`, or `nil` when they need ArgumentParser.
    static func parse(_ arguments: ArraySlice<String>) -> TokenArguments? {
        var parsed = TokenArguments()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else { return nil }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            switch name {
            case "id-token" where value == nil: parsed.idToken = true
            case "json" where value == nil: parsed.json = true
            case "min-ttl", "output":
                guard let text = value ?? rest.popFirst(), value != nil || !text.hasPrefix("-") else {
                    return nil
                }
                if name == "min-ttl" {
                    guard let seconds = Int(text) else { return nil }
                    parsed.minTTL = seconds
                } else {
                    guard let format = Token.Format(rawValue: text) else { return nil }
                    parsed.output = format
                }
            default:
                guard let option = SettingOption(rawValue: name), let text = value ?? rest.popFirst(),
                    value != nil || !text.hasPrefix("-")
                else { return nil }
                parsed.options[option] = text
            }
        }
        return parsed
    }

    /// The settings flags as ArgumentParser would have set them.
    var flags: SettingFlags {
        SettingFlags(options, clientSecretFile: clientSecretFile, clientSecretStdin: clientSecretStdin)
    }

    /// The output format: `--json` is `--output json`.
    var format: Token.Format { json ? .json : output }
}
