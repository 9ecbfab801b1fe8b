/// Where a finished sign-in may send the browser: a path on this app's own origin, never another site (no open
/// redirect).
enum ReturnPath {
    /// The longest path accepted, in bytes: it travels sealed in the sign-in cookie, which a browser sends with
    /// every request until the sign-in ends, beside the other cookies of the site.
    static let maximumLength = 512

    /// `text` when it is a same-origin absolute path such as `/orders?x=1#top`, else `nil`.
    ///
    /// Refused: anything not starting with a single `/` (`//evil.example`, `https://...`, `javascript:`), a
    /// backslash (browsers read `/\evil.example` as another host), control characters or spaces, and anything
    /// longer than ``maximumLength``.
    static func validated(_ text: String) -> String? {
        guard text.hasPrefix("/"), !text.hasPrefix("//"), text.utf8.count <= maximumLength else { return nil }
        let acceptable = text.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value != 0x7F && scalar != "\\" && scalar.isASCII
        }
        return acceptable ? text : nil
    }
}
