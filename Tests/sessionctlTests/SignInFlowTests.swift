import AsyncHTTPClient
import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

@Suite("sessionctl sign-in flows, scripted")
struct CLISignInFlowTests {
    @Test("login --device shows a code, polls, and stores the session once approved")
    func device() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--device"])
            let shown = try await login.waitForStderr(containing: "enter the code")
            let line = try #require(shown.split(separator: "\n").first { $0.contains("enter the code") })
            let code = try #require(line.split(separator: " ").last.map(String.init))
            try await emulator.controls.approveDevice(userCode: code, userID: AuthEmulator.User.aliceID)
            let result = try await login.finish()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Signed in"))
            #expect(try await cli.run(["status"]).status == 0)
        }
    }

    @Test("login --browser --no-open prints a short start link, receives the redirect on 127.0.0.1, exchanges the code")
    func browser() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }) {
            emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let login = try cli.start(["login", "--browser", "--no-open"])
            let start = try await login.startLink()
            let browser = LoopbackBrowser()
            let authorize = try await browser.authorizationURL(fromStart: start)
            #expect(authorize.query?.contains("code_challenge_method=S256") == true)
            let callback = try await browser.redirect(fromAuthorization: authorize)
            #expect(callback.host == "127.0.0.1")
            let page = try await browser.get(callback)
            #expect(page.status == 200)
            #expect(page.text.contains("Signed in as \(AuthEmulator.User.aliceEmail)"))
            let result = try await login.finish()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try await cli.run(["status"]).status == 0)
        }
    }

    @Test("concurrent token processes on an expired session make exactly one renewal, and all print a valid token")
    func concurrentProcesses() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.lifetimes.accessToken = 2 }) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let first = try await cli.run(["token", "--min-ttl", "0"]).stdout
            try await Task.sleep(for: .milliseconds(2100))
            try await emulator.controls.resetRequestCounts()
            let processes = try (0..<8).map { _ in try cli.start(["token", "--min-ttl", "0"]) }
            var tokens: Set<String> = []
            for process in processes {
                let result = try await process.finish()
                #expect(result.status == 0, "\(result.stderr)")
                tokens.insert(result.stdout)
            }
            #expect(tokens.count == 1, "every process prints the one renewed token")
            #expect(tokens.first != first)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
        }
    }

    @Test("no command but token prints a token")
    func noTokenOutside() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            var outputs = [try await cli.signIn().output]
            let store = try EncryptedFileStoreReader(folder: cli.sessionsFolder)
            var secrets = try await store.secrets(issuer: emulator.issuer)
            #expect(secrets.count == 3)
            for arguments in [["status"], ["status", "--json"], ["whoami"], ["whoami", "--json"], ["refresh"]] {
                outputs.append(try await cli.run(arguments).output)
            }
            secrets += try await store.secrets(issuer: emulator.issuer)
            outputs.append(try await cli.run(["logout"]).output)
            outputs.append(try await cli.run(["token"]).output)
            for output in outputs {
                for secret in secrets where output.contains(secret) {
                    Issue.record("a token (\(secret.prefix(6))…) appeared in: \(output.prefix(120))")
                }
            }
        }
    }
}
