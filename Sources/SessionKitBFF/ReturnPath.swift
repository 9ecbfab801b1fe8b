/// Where a finished sign-in may send the browser: a path on this app's own origin, never another site (no open
/// redirect).
enum ReturnPath {
    /// `text` when it is a same-origin absolute path such as `/orders?x=1#top`, else `nil`.
    ///
    /// Refused: anything not starting with a single `/` (`//evil.example`, `https://...`, `javascript:`), a
    /// backslash (browsers read `/\evil.example` as another host), and control characters or spaces.
    static func validated(_ text: String) -> String? {
        guard text.hasPrefix("/"), !text.hasPrefix("//"), text.utf8.count <= 2048 else { return nil }
        let acceptable = text.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value != 0x7F && scalar != "\\" && scalar.isASCII
        }
        return acceptable ? text : nil
    }
}
