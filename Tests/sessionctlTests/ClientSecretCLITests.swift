import AuthEmulator
import Foundation
import SessionKitTesting
import Testing

/// `sessionctl` with a confidential client (issue 12, item 6): the secret from a private file, standard input
/// or `SESSIONCTL_CLIENT_SECRET`, saved by `configure` in the secure store, never in `config.json`, a log line,
/// an error or `status`.
@Suite("sessionctl with a confidential client")
struct ClientSecretCLITests {
    private static let secret = AuthEmulator.Client.confidentialSecret

    /// An emulator that accepts only client_secret_basic from confidential clients.
    private static let basicOnly = LiveEmulator.configuration {
        $0.clientAuthenticationMethods = ["client_secret_basic", "none"]
    }

    /// A CLI for the emulator's confidential client.
    private static func cli(for emulator: AuthEmulator) throws -> CLI {
        var cli = try CLI.make(for: emulator)
        cli.environment["SESSIONCTL_CLIENT_ID"] = AuthEmulator.Client.confidentialID
        return cli
    }

    /// Writes the secret to a file in the CLI's home with `mode`.
    private static func secretFile(_ cli: CLI, mode: Int) throws -> String {
        let path = cli.home.appendingPathComponent("client-secret").path
        try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test("configure saves the secret in the secure store; sign-in, renewal and logout authenticate with it")
    func configureSavesSecret() async throws {
        try await LiveEmulator.with(Self.basicOnly) { emulator in
            let cli = try Self.cli(for: emulator)
            defer { cli.cleanUp() }
            let file = try Self.secretFile(cli, mode: 0o600)
            let configure = try await cli.run([
                "configure", "--issuer", emulator.issuer.absoluteString, "--client-id",
                AuthEmulator.Client.confidentialID, "--client-secret-file", file,
            ])
            #expect(configure.status == 0, "\(configure.stderr)")
            #expect(configure.stdout.contains("Saved the client secret in the secure store"))
            let config = try String(
                contentsOf: cli.home.appendingPathComponent("config/sessionctl/config.json"), encoding: .utf8)
            #expect(!config.contains(Self.secret) && config.contains("client_secret_in_secure_store"))
            try FileManager.default.removeItem(atPath: file)

            var outputs = [configure.output]
            outputs.append(try await cli.signIn().output)
            let refresh = try await cli.run(["refresh"])
            #expect(refresh.status == 0, "\(refresh.stderr)")
            for command in [["status"], ["status", "--json"], ["token", "--min-ttl", "0"]] {
                let result = try await cli.run(command)
                #expect(result.status == 0, "\(result.stderr)")
                outputs.append(result.output)
            }
            let logout = try await cli.run(["logout"])
            #expect(logout.status == 0 && !logout.output.contains("did not revoke"), "\(logout.output)")
            outputs += [refresh.output, logout.output]
            #expect(try await emulator.controls.requestCounts()[.revoke] == 1)
            for output in outputs { #expect(!output.contains(Self.secret)) }

            // Forgotten: the next sign-in is refused as an unauthenticated confidential client.
            let forget = try await cli.run(["configure", "--forget-client-secret"])
            #expect(forget.status == 0 && forget.stdout.contains("Deleted the saved client secret"))
            let refused = try await cli.run(
                ["login", "--password-stdin", "--username", AuthEmulator.User.aliceEmail],
                input: AuthEmulator.User.alicePassword + "\n")
            #expect(refused.status != 0 && refused.stderr.contains("invalid_client"), "\(refused.stderr)")
        }
    }

    @Test("a secret file that others can read is refused, and the secret is not shown; a missing one is named")
    func readableFileRefused() async throws {
        try await LiveEmulator.with(Self.basicOnly) { emulator in
            let cli = try Self.cli(for: emulator)
            defer { cli.cleanUp() }
            let file = try Self.secretFile(cli, mode: 0o644)
            for command in [["configure", "--client-secret-file", file], ["refresh", "--client-secret-file", file]] {
                let result = try await cli.run(command)
                #expect(result.status == 4, "\(result.output)")
                #expect(result.stderr.contains("chmod 600") && !result.output.contains(Self.secret))
            }
            let missing = cli.home.appendingPathComponent("no-such-secret").path
            let result = try await cli.run(["refresh", "--client-secret-file", missing])
            #expect(result.status == 4, "\(result.output)")
            // The system's own words, not a Foundation error's dump.
            #expect(
                result.stderr.contains("cannot read the client secret file \(missing) (No such file or directory)"),
                "\(result.stderr)")
        }
    }

    @Test("SESSIONCTL_CLIENT_SECRET and --client-secret-stdin serve one run each and save nothing, unless configured")
    func environmentAndStandardInput() async throws {
        try await LiveEmulator.with(Self.basicOnly) { emulator in
            var cli = try Self.cli(for: emulator)
            defer { cli.cleanUp() }
            cli.environment["SESSIONCTL_CLIENT_SECRET"] = Self.secret
            try await cli.signIn()
            cli.environment["SESSIONCTL_CLIENT_SECRET"] = nil
            let without = try await cli.run(["refresh"])
            #expect(without.status != 0 && without.stderr.contains("invalid_client"), "\(without.stderr)")
            let stdin = try await cli.run(["refresh", "--client-secret-stdin"], input: Self.secret + "\n")
            #expect(stdin.status == 0, "\(stdin.stderr)")

            let both = try await cli.run(
                ["login", "--password-stdin", "--username", "a", "--client-secret-stdin"], input: "x\n")
            #expect(both.status != 0 && both.stderr.contains("both read standard input"))
            let empty = try await cli.run(["refresh", "--client-secret-stdin"], input: "\n")
            #expect(empty.status == 4 && empty.stderr.contains("is empty"))
        }
    }

    @Test("--client-auth post against a provider that takes only basic is refused; auto picks basic")
    func clientAuthSetting() async throws {
        try await LiveEmulator.with(Self.basicOnly) { emulator in
            var cli = try Self.cli(for: emulator)
            defer { cli.cleanUp() }
            cli.environment["SESSIONCTL_CLIENT_SECRET"] = Self.secret
            try await cli.signIn()
            let post = try await cli.run(["refresh", "--client-auth", "post"])
            #expect(post.status != 0 && post.stderr.contains("invalid_client"), "\(post.stderr)")
            let basic = try await cli.run(["refresh", "--client-auth", "basic"])
            #expect(basic.status == 0, "\(basic.stderr)")
            let bad = try await cli.run(["refresh", "--client-auth", "jwt"])
            #expect(bad.status == 4 && bad.stderr.contains("auto, basic, post"))
        }
    }
}
