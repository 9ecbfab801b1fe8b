#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One request of git's credential protocol (git-credential(1)): `key=value` lines until a blank line or the end,
/// `capability[]` and other `[]` keys repeated.
struct GitCredentialRequest: Equatable {
    /// Single-valued attributes: `protocol`, `host`, `path`, `username`, `password`, `credential`, ...
    var attributes: [String: String] = [:]
    /// What git says it understands (`capability[]=authtype`, git 2.46 and later).
    var capabilities: Set<String> = []

    /// Why the input is not a credential request.
    struct Malformed: Error, CustomStringConvertible {
        let line: Int
        var description: String {
            "line \(line) of the credential request is not key=value; git sends such lines (see git-credential(1))"
        }
    }

    /// Reads `text` as git writes it.
    init(parsing text: String) throws(Malformed) {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw Malformed(line: index + 1)
            }
            let key = String(line[..<equals])
            let value = String(line[line.index(after: equals)...])
            if key == "capability[]" {
                capabilities.insert(value)
            } else if !key.hasSuffix("[]") {
                attributes[key] = value
            }
        }
    }

    init() {}

    /// Whether `value` can travel in one `key=value` line of git's protocol: printable ASCII only, so that a token or
    /// username cannot end its line and add attributes of its own (a `host=`, a second `password=`).
    static func fitsOneLine(_ value: String) -> Bool {
        value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// The answer for an access token: `authtype`/`credential` where git understands them, else `username` and
    /// `password`; with `password_expiry_utc` (git 2.41 and later) when the expiry is known. `nil` when the token or
    /// the username holds a character that git's line protocol cannot carry (``fitsOneLine(_:)``).
    func answer(token: String, username: String, expiresAt: Date?) -> String? {
        guard Self.fitsOneLine(token), Self.fitsOneLine(username) else { return nil }
        var lines: [String] = []
        if capabilities.contains("authtype") {
            lines += ["capability[]=authtype", "authtype=Bearer", "credential=\(token)", "ephemeral=1"]
        } else {
            lines += ["username=\(username)", "password=\(token)"]
        }
        if let expiresAt { lines.append("password_expiry_utc=\(Int(expiresAt.timeIntervalSince1970))") }
        return lines.joined(separator: "\n") + "\n"
    }
}
