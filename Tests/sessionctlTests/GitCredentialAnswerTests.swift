import Foundation
import Testing

@testable import sessionctl

/// git's credential protocol is one `key=value` per line: what the helper answers must not add lines of its own.
@Suite("git-credential's answer: one line per attribute, whatever the token holds")
struct GitCredentialAnswerTests {
    @Test(
        "a token or username with a line break or a control character is never answered",
        arguments: ["eyJ\nhost=evil.example", "eyJ\rpassword=x", "eyJ\u{0}x", "eyJ\u{1B}[2J", "tok\u{85}en", "tö"])
    func refused(_ token: String) throws {
        let request = try GitCredentialRequest(parsing: "protocol=https\nhost=forge.example.com\n\n")
        #expect(request.answer(token: token, username: "oauth2", expiresAt: nil) == nil)
        #expect(request.answer(token: "eyJ.a.b", username: token, expiresAt: nil) == nil)
    }

    @Test("a token of printable characters is answered on its own lines, the attributes parse back")
    func answered() throws {
        let request = try GitCredentialRequest(parsing: "protocol=https\nhost=forge.example.com\n\n")
        let answer = try #require(
            request.answer(token: "eyJhbGci.eyJzdWIi.c2ln-_~+/=", username: "oauth2", expiresAt: nil))
        let parsed = try GitCredentialRequest(parsing: answer)
        #expect(parsed.attributes == ["username": "oauth2", "password": "eyJhbGci.eyJzdWIi.c2ln-_~+/="])
    }
}
