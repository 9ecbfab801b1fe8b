/// A string as one YAML scalar that every YAML reader, kubectl's (YAML 1.1) included, reads back as the same string.
enum YAMLScalar {
    /// `text` plain when it is made of letters, digits and `-_./=:@+,` (not starting with one of `:@,`, not looking like
    /// a number, a boolean or null), else in double quotes with JSON's escapes, which are YAML's too.
    static func render(_ text: String) -> String {
        isPlainSafe(text) ? text : quoted(text)
    }

    /// Words YAML 1.1 or 1.2 reads as something other than a string.
    private static let reserved: Set<String> = [
        "y", "yes", "n", "no", "true", "false", "on", "off", "null", "~",
    ]

    /// Whether `text` reads back as the same string without quotes.
    private static func isPlainSafe(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !reserved.contains(text.lowercased()) else { return false }
        let allowed = text.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": true
            default: "-_./=:@+,".unicodeScalars.contains(scalar)
            }
        }
        // A leading digit, sign or dot may read as a number (1e3, .5, +1, 0x1F, 1_000, 12:30:00 in YAML 1.1);
        // a leading `-` is a plain string only when the next character is not a space or a digit (`--output`).
        let numeric =
            ("0"..."9").contains(first) || first == "+" || first == "." || text == "-"
            || (first == "-"
                && text.unicodeScalars.dropFirst().first.map { ("0"..."9").contains($0) || $0 == "." }
                    ?? true)
        let indicator = first == ":" || first == "@" || first == ","
        // `: ` and ` #` never occur without spaces; a `:` at the end would start a mapping.
        return allowed && !numeric && !indicator && !text.hasSuffix(":")
    }

    /// `text` in double quotes, escaped.
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
