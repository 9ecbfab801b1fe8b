import Foundation
import Testing

@testable import sessionctl

@Suite("sessionctl's advice: words quoted for a POSIX shell")
struct ShellWordTests {
    @Test(
        "/bin/sh reads the quoted word back as the original bytes",
        arguments: [
            "x' ; id > /tmp/p ; echo '", "'", "''", "\\'", "a b", "$(id)", "`id`", "${HOME}", "a\"b", "*", "~", "-n",
            "line\nbreak", "tab\there", "!event", "é ünïcode 🔒", "urn:mfa", "forge.example.com:443", "[::1]:8443", "",
            "x;y|z&w", "#comment", "a\\", "%s %d",
        ])
    func roundTrip(_ text: String) async throws {
        let quoted = ShellWord.quoted(text)
        #expect(try await shell("printf %s " + quoted, lines: false) == [text], "\(quoted)")
    }

    @Test("a plain word stays as it is; anything else is single-quoted")
    func plain() {
        #expect(ShellWord.quoted("forge.example.com:443") == "forge.example.com:443")
        #expect(ShellWord.quoted("urn:mfa") == "urn:mfa")
        #expect(ShellWord.quoted("default") == "default")
        #expect(ShellWord.quoted("a b") == "'a b'")
        #expect(ShellWord.quoted("it's") == "'it'\\''s'")
        #expect(ShellWord.quoted("") == "''")
    }
}
