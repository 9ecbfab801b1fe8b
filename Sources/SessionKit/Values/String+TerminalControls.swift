extension Unicode.Scalar {
    /// Whether a terminal acts on this scalar rather than shows it: the C0 controls (ESC, CR, BEL, ...), DEL, the
    /// C1 controls (CSI among them), and the bidirectional formatting characters (marks, embeddings, overrides,
    /// isolates), which reorder what is shown around them.
    package var isTerminalControl: Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

extension StringProtocol {
    /// Whether this text holds anything a terminal acts on (``Unicode/Scalar/isTerminalControl``) besides line
    /// feeds: one call for the whole text, for a command-line tool's check of every line it prints.
    package var hasTerminalControlsBesidesLineFeeds: Bool {
        unicodeScalars.contains { $0 != "\n" && $0.isTerminalControl }
    }

    /// This text with nothing a terminal acts on (``Unicode/Scalar/isTerminalControl``): a tab, line break or page
    /// break becomes a space, every other control is removed.
    ///
    /// What a provider says (`error`, `error_description`, a step-up challenge's values) goes through this before
    /// SessionKit keeps it, so that an app or a command-line tool that shows it shows text: a description cannot
    /// retitle a terminal window, move its cursor over an earlier line, or reverse the order of what follows.
    package func strippingTerminalControls() -> String {
        guard unicodeScalars.contains(where: \.isTerminalControl) else { return String(self) }
        var text = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if (0x09...0x0D).contains(scalar.value) {
                text.append(" ")
            } else if !scalar.isTerminalControl {
                text.append(scalar)
            }
        }
        return String(text)
    }
}
