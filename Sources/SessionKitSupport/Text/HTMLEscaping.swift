/// Text made safe inside HTML, the one spelling for the pages SessionKit's programs show (the loopback listener's,
/// the emulator's, the back end for front ends').
package enum HTMLEscaping {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by their entities: safe in an element and in a quoted
    /// attribute value.
    package static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
