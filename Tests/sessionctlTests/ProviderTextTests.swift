import Foundation
import SessionKitTesting
import Testing

/// What a provider says reaches the terminal without anything a terminal acts on: against
/// `scripts/provider-stand-in.py`, which says what a hostile provider would.
@Suite("sessionctl and a provider's hostile text")
struct ProviderTextTests {
    /// Text that retitles the window, moves the cursor to the start of the line, clears the screen (C1 CSI) and
    /// reverses the reading order.
    static let hostile = "\u{1B}]0;pwned\u{07}\r\nsecond line \u{202E}desrever\u{202C} \u{9B}2J \u{1B}[31mred\u{7F}"

    @Test("an error and error_description full of terminal controls reach standard error without them")
    func errorDescription() async throws {
        let provider = try await ProviderStandIn.start([
            "token": [
                "status": 503,
                "body": ["error": "temporarily_unavailable\u{1B}[8m", "error_description": Self.hostile],
            ]
        ])
        defer { provider.stop() }
        let cli = try provider.cli()
        defer { cli.cleanUp() }
        let login = try await cli.signIn(expecting: 2)
        #expect(login.stderr.contains("temporarily_unavailable[8m: ]0;pwned"), "shown, defanged: \(login.stderr)")
        #expect(terminalControls(in: login.stderr).isEmpty, "\(terminalControls(in: login.stderr))")
    }

    @Test("device sign-in shows the provider's code and links without terminal controls")
    func deviceCode() async throws {
        let provider = try await ProviderStandIn.start()
        defer { provider.stop() }
        try provider.answer([
            "device": [
                "status": 200,
                "body": [
                    "device_code": "device-code", "user_code": "WDJB\u{1B}[2J-MJHT\u{202E}",
                    "verification_uri": provider.issuer + "activate",
                    "verification_uri_complete": provider.issuer + "activate?code=\u{202E}x", "expires_in": 5,
                    "interval": 1,
                ],
            ]
        ])
        let cli = try provider.cli()
        defer { cli.cleanUp() }
        let login = try await cli.run(["login", "--device", "--timeout", "3"])
        #expect(terminalControls(in: login.stderr).isEmpty, "\(terminalControls(in: login.stderr)): \(login.stderr)")
    }
}

extension CLI {
    /// Signs alice in with `login --password-stdin`, expecting `status`.
    @discardableResult
    func signIn(expecting status: Int32) async throws -> Result {
        let result = try await run(
            ["login", "--password-stdin", "--username", "alice@example.com"], input: "alice-demo-password\n")
        #expect(result.status == status, "\(result.output)")
        return result
    }
}

/// The characters of `text` a terminal acts on: C0 controls but the newline, DEL, C1 controls, and the bidi
/// embeddings, overrides, isolates and marks.
func terminalControls(in text: String) -> [String] {
    text.unicodeScalars.filter { scalar in
        let value = scalar.value
        return (value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(value)
            || [0x061C, 0x200E, 0x200F].contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
}
