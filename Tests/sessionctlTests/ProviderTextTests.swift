import Foundation
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// What a provider says reaches the terminal without anything a terminal acts on, and advice built from it is
/// safe to paste into a shell: against `scripts/provider-stand-in.py`, which says what a hostile provider would.
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

    @Test("step-up advice quotes a hostile acr_values for the shell, and shows no terminal control")
    func stepUpAdvice() async throws {
        let folder = try TemporaryFolder(prefix: "sessionctl-step-up").url.path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let acr = "x' ; touch \(folder)/pwned ; echo ' urn:mfa $(id) `id` \\"
        let provider = try await ProviderStandIn.start([
            "token": [
                "status": 403,
                "body": [
                    "error": "mfa_required", "error_description": Self.hostile, "mfa_token": "mfa-token-secret",
                    "acr_values": acr, "max_age": 300,
                ],
            ]
        ])
        defer { provider.stop() }
        let cli = try provider.cli()
        defer { cli.cleanUp() }
        let login = try await cli.signIn(expecting: 5)
        #expect(terminalControls(in: login.stderr).isEmpty, "\(terminalControls(in: login.stderr))")
        #expect(!login.output.contains("mfa-token-secret"))
        let marker = "a second factor: sessionctl "
        let line = try #require(login.stderr.split(separator: "\n").first { $0.contains(marker) }, "\(login.stderr)")
        let arguments = String(try #require(line.range(of: marker).map { line[$0.upperBound...] }))
        // The advice as a shell runs it, with printf in place of sessionctl: the words it would get.
        let words = try await shell("printf '%s\\n' " + arguments)
        #expect(words == ["login", "--browser", "--acr-values", acr, "--max-age", "300"], "\(arguments)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/pwned"), "the advice ran a command: \(arguments)")
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

    @Test("no revocation or device endpoint: logout and login --device name sessionctl's configure options")
    func missingEndpoints() async throws {
        let provider = try await ProviderStandIn.start([
            "omit": ["revocation_endpoint", "device_authorization_endpoint"]
        ])
        defer { provider.stop() }
        let cli = try provider.cli()
        defer { cli.cleanUp() }
        try await cli.signIn(expecting: 0)
        let logout = try await cli.run(["logout"])
        #expect(logout.status == 0, "\(logout.output)")
        #expect(logout.stderr.contains("sessionctl configure --profile default --revocation-endpoint URL"))
        #expect(!logout.output.contains("EndpointOverrides"), "\(logout.output)")
        #expect(try await cli.run(["status"]).status == 1, "signed out locally")

        let device = try await cli.run(["login", "--device", "--profile", "the other"])
        #expect(device.status == 4, "\(device.output)")
        #expect(device.stderr.contains("sessionctl configure --profile 'the other' --device-endpoint URL"))
        #expect(!device.output.contains("EndpointOverrides"), "\(device.output)")
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

/// What `/bin/sh -c script` prints: its lines, or with `lines` false all of it as one string.
func shell(_ script: String, lines: Bool = true) async throws -> [String] {
    let process = try SpawnedProcess(
        path: "/bin/sh", arguments: ["-c", script], environment: ProcessInfo.processInfo.environment)
    try process.standardInput.close()
    let output = try await CLI.Result.of(process).stdout
    guard lines else { return [output] }
    return output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}
