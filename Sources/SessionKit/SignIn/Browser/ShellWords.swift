/// Splits a command line into words as a POSIX shell would, for quoting only: single quotes, double quotes
/// (with `\"` and `\\` inside) and backslash escapes. No expansion of any kind.
/// sessionctl reads the helper lines of git's config with it too.
package enum ShellWords {
    /// The words of `line`.
    package static func split(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if quote == "'" {
                if character == "'" { quote = nil } else { current.append(character) }
            } else if character == "\\" {
                escaped = true
                inWord = true
            } else if quote == "\"" {
                if character == "\"" { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" || character == "\n" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
