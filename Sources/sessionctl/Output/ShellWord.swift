/// A word of a POSIX shell command that sessionctl prints as advice to paste, such as the step-up sign-in or the
/// `configure` that lets a git host have tokens. Its parts come from a provider or from git's request, so each is
/// quoted: pasting the advice runs sessionctl with those exact bytes as one argument, never another command.
enum ShellWord {
    /// `text` as one shell word: as it is when it holds only letters, digits and `@%+=:,./_-` (and is not empty),
    /// else in single quotes, each `'` written `'\''` (inside single quotes the shell gives every other byte,
    /// newline included, its own meaning as text).
    static func quoted(_ text: String) -> String {
        if !text.isEmpty, text.utf8.allSatisfy(isPlain) { return text }
        return "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// An ASCII letter or digit, or one of `@%+=:,./_-`: bytes that no shell treats specially anywhere in a word.
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "@%+=:,./_-".utf8.contains(byte)
        }
    }
}
