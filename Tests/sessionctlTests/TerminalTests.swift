import Testing

@testable import sessionctl

@Suite("sessionctl's terminal output: nothing a terminal acts on but its own colours")
struct TerminalTests {
    @Test("controls are taken out, tabs and carriage returns become spaces, line feeds and own styles stay")
    func sanitized() {
        let own = Terminal.Style.warn.rawValue + "warning:" + Terminal.Style.reset.rawValue
        let hostile = "a\u{1B}]0;pwned\u{07}\r\nb\tc \u{202E}d\u{2066}e\u{9B}2J\u{1B}[8mf\u{7F}\u{0}"
        #expect(Terminal.sanitized(own + " " + hostile) == own + " a]0;pwned \nb c de2J[8mf")
        #expect(
            Terminal.sanitized("plain text, \u{00E9}t\u{00E9} \u{1F512}\nline two") == "plain text, été 🔒\nline two")
        // An escape that merely starts like an own style is not one.
        #expect(Terminal.sanitized("\u{1B}[1;31mred") == "[1;31mred")
    }
}
