import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// `sessionctl login --backchannel` (OpenID CIBA, poll mode) as a process against a live emulator, with the
/// confidential client: the binding message shown, polling until the user approves on their device, the session
/// stored; a denial failing clearly with the stored session kept; the options checked before anything is sent.
@Suite("sessionctl login --backchannel")
struct BackchannelSignInCLITests {
    /// A CLI configured for the emulator's confidential client (CIBA needs client authentication).
    private static func cli(for emulator: AuthEmulator) throws -> CLI {
        var cli = try CLI.make(for: emulator)
        cli.environment["SESSIONCTL_CLIENT_ID"] = AuthEmulator.Client.confidentialID
        cli.environment["SESSIONCTL_CLIENT_SECRET"] = AuthEmulator.Client.confidentialSecret
        return cli
    }

    @Test("shows the binding message, polls, and stores the session once the user approves on their device")
    func approved() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try Self.cli(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start([
                "login", "--backchannel", "--login-hint", AuthEmulator.User.aliceEmail, "--binding-message",
                "Deploy 42",
            ])
            let shown = try await login.waitForStderr(containing: "your device shows")
            #expect(shown.contains("approve it on your device"), "\(shown)")
            #expect(shown.contains("Deploy 42"), "\(shown)")
            try await emulator.controls.approveBackchannelAuthentication(
                forUser: AuthEmulator.User.aliceID, bindingMessage: "Deploy 42")
            let result = try await login.finish()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Signed in as \(AuthEmulator.User.aliceEmail)"), "\(result.stdout)")
            #expect(try await emulator.controls.requestCounts()[.backchannelAuthentication] == 1)
            #expect(try await cli.run(["status"]).status == 0)
            #expect(!result.output.contains("auth_req_id"), "\(result.output)")
        }
    }

    @Test("denied on the device: a non-zero exit that says so, and the stored session is the one from before")
    func deniedKeepsSession() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try Self.cli(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let before = try await cli.run(["token"])
            let login = try cli.start(["login", "--backchannel", "--login-hint", AuthEmulator.User.aliceEmail])
            _ = try await login.waitForStderr(containing: "approve it on your device")
            try await emulator.controls.denyBackchannelAuthentication(forUser: AuthEmulator.User.aliceID)
            let result = try await login.finish()
            #expect(result.status == 2, "\(result.output)")
            #expect(result.stderr.contains("denied the sign-in on their device"), "\(result.stderr)")
            let after = try await cli.run(["token"])
            #expect(after.status == 0)
            #expect(after.stdout == before.stdout, "the stored session is the one from before")
        }
    }

    @Test("--backchannel with a provider without a CIBA endpoint: exit 4 before anything is sent, and what to do")
    func providerWithoutEndpoint() async throws {
        let provider = try await ProviderStandIn.start()
        defer { provider.stop() }
        var cli = try provider.cli()
        defer { cli.cleanUp() }
        cli.environment["SESSIONCTL_CLIENT_SECRET"] = "stand-in-secret"
        let login = try await cli.run(["login", "--backchannel", "--login-hint", "alice", "--timeout", "5"])
        #expect(login.status == 4, "\(login.output)")
        #expect(login.stderr.contains("sign in without --backchannel"), "\(login.stderr)")
    }

    @Test("refused before anything is sent: no --login-hint, a hint without --backchannel, an unknown user")
    func refusals() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try Self.cli(for: emulator)
            defer { cli.cleanUp() }
            let noHint = try await cli.run(["login", "--backchannel"])
            #expect(noHint.status == 64, "\(noHint.stderr)")
            #expect(noHint.stderr.contains("--backchannel needs --login-hint"), "\(noHint.stderr)")
            let stray = try await cli.run(["login", "--device", "--login-hint", "alice"])
            #expect(stray.status == 64 && stray.stderr.contains("need --backchannel"), "\(stray.stderr)")
            #expect(try await emulator.controls.requestCounts()[.backchannelAuthentication] == 0)
            let unknown = try await cli.run(["login", "--backchannel", "--login-hint", "nobody@example.com"])
            #expect(unknown.status == 2, "\(unknown.output)")
            #expect(unknown.stderr.contains("unknown_user_id"), "\(unknown.stderr)")
            #expect(unknown.stderr.contains("login hint"), "\(unknown.stderr)")
        }
    }
}
