import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// The provider refuses or misanswers; `sessionctl` says so plainly and keeps what it should.
@Suite("sessionctl when the provider refuses")
struct ProviderRefusalTests {
    @Test("whoami refuses a userinfo answer for another user and keeps the session")
    func whoamiOtherSubject() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            try await emulator.controls.inject(.otherSubject, into: .userinfo)
            let refused = try await cli.run(["whoami"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("another user"), "\(refused.output)")
            #expect(!refused.stdout.contains("someone-else"), "\(refused.output)")
            #expect(try await cli.run(["status"]).status == 0, "the session is kept")
            try await emulator.controls.clearFaults(.userinfo)
            let whoami = try await cli.run(["whoami"])
            #expect(whoami.status == 0, "\(whoami.output)")
            #expect(!whoami.stdout.contains("someone-else"))
        }
    }

    // A public client's revocation refused as needing client authentication (401 here; 400 invalid_client
    // is the same path): logout signs out locally and says the provider did not revoke.
    @Test("logout clears locally and says so when the provider refuses revocation", arguments: [401, 400])
    func logoutRevocationRefused(status: Int) async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let credentials = try #require(
                try await EncryptedFileStoreReader(folder: cli.sessionsFolder).credentials(
                    for: try emulator.providerConfiguration()))
            try await emulator.controls.inject(.status(status), into: .revoke)
            let logout = try await cli.run(["logout"])
            #expect(logout.status == 0, "\(logout.output)")
            #expect(!logout.stdout.contains("revoked at the provider"), "\(logout.output)")
            #expect(logout.stderr.contains("could not revoke at the provider"), "\(logout.output)")
            #expect(try await cli.run(["status"]).status == 1, "signed out locally")
            try await emulator.controls.clearFaults(.revoke)
            let renewed = try await ProviderClient(configuration: try emulator.providerConfiguration()).renew(
                credentials)
            #expect(renewed.accessToken != credentials.accessToken, "the grant was indeed not revoked")
        }
    }

    @Test("a refresh answered mfa_required: exit 5, the login command to run, the session kept, no mfa_token shown")
    func stepUpRequired() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            try await emulator.controls.requireMultiFactor(forUser: AuthEmulator.User.aliceID)
            let refresh = try await cli.run(["refresh"])
            #expect(refresh.status == 5, "\(refresh.output)")
            #expect(refresh.stderr.contains("mfa_required"), "\(refresh.output)")
            #expect(refresh.stderr.contains("sessionctl login --browser"), "\(refresh.output)")
            #expect(!refresh.stderr.contains("mfa_token"), "\(refresh.output)")
            #expect(try await cli.run(["status"]).status == 0, "the session is kept")
            let bad = try await cli.run(["login", "--device", "--acr-values", "urn:mfa"])
            #expect(bad.status == 64, "\(bad.output)")
            #expect(bad.stderr.contains("need the browser sign-in"), "\(bad.output)")
        }
    }

    @Test("a wrong password is a failed sign-in: exit 1, 'wrong username or password', the stored session kept")
    func wrongPassword() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let token = try await cli.run(["token"]).stdout
            try await emulator.controls.resetRequestCounts()
            let wrong = try await cli.run(
                ["login", "--password-stdin", "--username", AuthEmulator.User.aliceEmail], input: "not-hers\n")
            #expect(wrong.status == 1, "not retryable: \(wrong.output)")
            #expect(wrong.stderr.contains("wrong username or password"), "\(wrong.output)")
            #expect(wrong.stderr.contains("(provider: invalid_grant: "), "the provider's own words: \(wrong.output)")
            #expect(!wrong.output.contains("not-hers"))
            #expect(try await emulator.controls.requestCounts()[.password] == 1, "tried once")
            #expect(try await cli.run(["status"]).status == 0, "the session is kept")
            #expect(try await cli.run(["token"]).stdout == token, "and its token")
        }
    }

    @Test("a provider without offline_access: login keeps a refresh token; asking for it names the refused scope")
    func providerWithoutOfflineAccess() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.offlineAccessIsAScope = false }) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try await cli.signIn()
            #expect(!login.stdout.contains("No refresh token"), "\(login.output)")
            #expect(try await cli.run(["refresh"]).status == 0, "the session renews")
            let asked = try await cli.run(
                [
                    "login", "--password-stdin", "--username", AuthEmulator.User.aliceEmail, "--scope",
                    "openid offline_access",
                ],
                input: AuthEmulator.User.alicePassword + "\n")
            #expect(asked.status == 4, "a refused scope is bad configuration, not retryable: \(asked.output)")
            #expect(
                asked.stderr.contains("'openid offline_access'") && asked.stderr.contains("--scope"), "\(asked.output)")
        }
    }
}
