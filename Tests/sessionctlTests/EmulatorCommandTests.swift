import AuthEmulator
import Foundation
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("sessionkit-emulator serve and demo; sessionctl help, completions and logout --no-revoke")
struct EmulatorCommandTests {
    @Test("serve prints its issuer and seeded clients, serves discovery, and stops on Ctrl-C")
    func emulator() async throws {
        let cli = try CLI.emulatorProgram()
        defer { cli.cleanUp() }
        let running = try cli.start(["serve"])
        let deadline = ContinuousClock.now + .seconds(15)
        while !running.stdoutText.contains("Ctrl-C"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let banner = running.stdoutText
        #expect(banner.contains(AuthEmulator.Client.nativeID))
        #expect(banner.contains(AuthEmulator.User.aliceEmail))
        let issuerText = try #require(
            banner.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("http://127.0.0.1:") }
        )
        let issuer = try #require(URL(string: String(issuerText)))
        let provider = ProviderClient(configuration: try ProviderConfiguration(issuer: issuer, clientID: "x"))
        #expect(try await provider.metadata().tokenEndpoint != nil)
        kill(running.process.processIdentifier, SIGINT)
        let result = try await running.finish(timeout: .seconds(10))
        #expect(result.status == 0)
    }

    @Test("demo walks the whole story against an in-process emulator and checks every step (the README's first line)")
    func demo() async throws {
        let cli = try CLI.emulatorProgram()
        defer { cli.cleanUp() }
        let result = try await cli.start(["demo"]).finish(timeout: .seconds(60))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("steps passed"))
        #expect(!result.stdout.contains("✘"))
    }

    @Test(
        "every command answers --help",
        arguments: [
            ["sessionctl"], ["sessionctl", "configure"], ["sessionctl", "login"], ["sessionctl", "status"],
            ["sessionctl", "token"], ["sessionctl", "whoami"], ["sessionctl", "metadata"],
            ["sessionctl", "metadata", "set"], ["sessionctl", "refresh"], ["sessionctl", "logout"],
            ["sessionkit-emulator"], ["sessionkit-emulator", "serve"], ["sessionkit-emulator", "demo"],
        ]
    )
    func help(command: [String]) async throws {
        var cli = try CLI.make()
        cli.program = command[0]
        let command = Array(command.dropFirst())
        defer { cli.cleanUp() }
        let result = try await cli.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE"))
    }

    @Test("shell completion scripts are generated", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) async throws {
        let cli = try CLI.make()
        defer { cli.cleanUp() }
        let result = try await cli.run(["--generate-completion-script", shell])
        #expect(result.status == 0)
        #expect(result.stdout.contains("sessionctl"))
        #expect(result.stdout.contains("whoami"))
    }

    @Test("logout --no-revoke clears locally and leaves the grant alive at the provider")
    func logoutWithoutRevoke() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let credentials = try #require(
                try await EncryptedFileStoreReader(folder: cli.sessionsFolder).credentials(
                    for: try emulator.providerConfiguration()))
            let result = try await cli.run(["logout", "--no-revoke"])
            #expect(result.status == 0)
            #expect(!result.stdout.contains("revoked"))
            #expect(try await cli.run(["status"]).status == 1)
            let renewed = try await ProviderClient(configuration: try emulator.providerConfiguration()).renew(
                credentials)
            #expect(renewed.accessToken != credentials.accessToken)
        }
    }
}
