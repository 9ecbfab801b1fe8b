import AuthEmulator
import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// `sessionctl git-credential` with the real git (Debian's) against git's own `http-backend` behind
/// `scripts/git-test-server.py`, which lets through only an access token the live emulator accepts.
@Suite("sessionctl as a git credential helper")
struct GitCredentialTests {
    /// A bare repository with one commit, served on loopback, and a way to run git with the helper.
    struct Forge {
        let cli: CLI
        let folder: String
        let server: SpawnedProcess
        let url: String

        static func start(_ cli: CLI, emulator: AuthEmulator) async throws -> Forge {
            let folder = try TemporaryFolder(prefix: "sessionctl-git").url.path
            let seed = folder + "/seed"
            try FileManager.default.createDirectory(atPath: seed, withIntermediateDirectories: true)
            try await run(["init", "--bare", "-q", folder + "/repo.git"], in: folder)
            try await run(["init", "-q", "-b", "main", seed], in: folder)
            try "hello\n".write(toFile: seed + "/README", atomically: true, encoding: .utf8)
            try await run(["add", "README"], in: seed)
            try await run(
                ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one"], in: seed)
            try await run(["push", "-q", folder + "/repo.git", "main"], in: seed)
            try await run(["symbolic-ref", "HEAD", "refs/heads/main"], in: folder + "/repo.git")
            let portFile = folder + "/port"
            let script = FileManager.default.currentDirectoryPath + "/scripts/git-test-server.py"
            let server = try SpawnedProcess(
                path: "/usr/bin/python3",
                arguments: [
                    script, "--root", folder, "--userinfo", emulator.issuer.absoluteString + "userinfo", "--port-file",
                    portFile,
                ],
                environment: ProcessInfo.processInfo.environment)
            let started = ContinuousClock.now
            while !FileManager.default.fileExists(atPath: portFile) {
                guard server.isRunning, ContinuousClock.now - started < .seconds(20) else {
                    throw TestFailure("the git server did not start")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            let port = try String(contentsOfFile: portFile, encoding: .utf8)
            return Forge(cli: cli, folder: folder, server: server, url: "http://127.0.0.1:\(port)/repo.git")
        }

        /// Runs git with only sessionctl as its credential helper, and nothing of this machine's git settings.
        @discardableResult
        func git(_ arguments: [String], in directory: String? = nil) async throws -> CLI.Result {
            // A token lives 5 s here: asking for 1 s of it lets processes that come after a renewal use its token.
            let helper = "!" + (try CLI.binary()) + " git-credential --min-ttl 1"
            return try await Self.run(
                ["-c", "credential.helper=", "-c", "credential.helper=\(helper)"] + arguments,
                in: directory ?? folder, environment: cli.processEnvironment)
        }

        @discardableResult
        static func run(_ arguments: [String], in directory: String, environment: [String: String] = [:]) async throws
            -> CLI.Result
        {
            var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            env["GIT_CONFIG_NOSYSTEM"] = "1"
            env["GIT_CONFIG_GLOBAL"] = "/dev/null"
            env["GIT_TERMINAL_PROMPT"] = "0"
            env["GIT_ASKPASS"] = "/bin/false"
            let process = try SpawnedProcess(
                path: "/usr/bin/git", arguments: ["-C", directory] + arguments, environment: env)
            try process.standardInput.close()
            while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            return CLI.Result(
                status: process.terminationStatus,
                stdout: String(decoding: process.standardOutput.readDataToEndOfFile(), as: UTF8.self),
                stderr: String(decoding: process.standardError.readDataToEndOfFile(), as: UTF8.self))
        }

        func stop() {
            server.terminate()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    @Test("clone, push, a fetch after expiry (one refresh), and 32 fetches at once renewing once")
    func realGit() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.lifetimes.accessToken = 5 }) { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let forge = try await Forge.start(cli, emulator: emulator)
            defer { forge.stop() }
            let clone = forge.folder + "/clone"
            let cloned = try await forge.git(["clone", "-q", forge.url, clone])
            #expect(cloned.status == 0, "\(cloned.stderr)")
            #expect(FileManager.default.fileExists(atPath: clone + "/README"))

            try "two\n".write(toFile: clone + "/TWO", atomically: true, encoding: .utf8)
            try await Forge.run(["add", "TWO"], in: clone)
            try await Forge.run(
                ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "two"], in: clone)
            let pushed = try await forge.git(["push", "-q", "origin", "main"], in: clone)
            #expect(pushed.status == 0, "\(pushed.stderr)")

            // The token expires; the next fetch gets a fresh one: exactly one refresh.
            try await Task.sleep(for: .milliseconds(5_200))
            try await emulator.controls.resetRequestCounts()
            let fetched = try await forge.git(["fetch", "-q", "origin"], in: clone)
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)

            // 32 fetches at once on an expired token: all succeed, one refresh between them.
            try await Task.sleep(for: .milliseconds(5_200))
            try await emulator.controls.resetRequestCounts()
            let results = try await withThrowingTaskGroup(of: CLI.Result.self) { group in
                for _ in 0..<32 { group.addTask { try await forge.git(["fetch", "-q", "origin"], in: clone) } }
                return try await group.reduce(into: [CLI.Result]()) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr).filter { !$0.isEmpty }.prefix(2))")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
        }
    }

    @Test("the protocol: get, authtype, store, erase marks the token stale, no session says so, bad input")
    func protocolAnswers() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            let request = "protocol=https\nhost=forge.example.com\n\n"
            let signedOut = try await cli.run(["git-credential", "get"], input: request)
            #expect(signedOut.status == 0 && signedOut.stdout.isEmpty)
            #expect(signedOut.stderr.contains("sessionctl login"), "\(signedOut.stderr)")

            try await cli.signIn()
            let token = try await cli.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let get = try await cli.run(["git-credential", "get"], input: request)
            let lines = Set(get.stdout.split(separator: "\n").map(String.init))
            #expect(lines.contains("username=oauth2") && lines.contains("password=\(token)"), "\(lines)")
            #expect(lines.contains { $0.hasPrefix("password_expiry_utc=") })
            #expect(!get.stderr.contains(token), "no token on standard error")

            let bearer = try await cli.run(
                ["git-credential", "--username", "me", "get"], input: "capability[]=authtype\n" + request)
            let answer = Set(bearer.stdout.split(separator: "\n").map(String.init))
            #expect(answer.isSuperset(of: ["capability[]=authtype", "authtype=Bearer", "credential=\(token)"]))
            #expect(!answer.contains { $0.hasPrefix("password=") })

            let stored = try await cli.run(["git-credential", "store"], input: request + "password=\(token)\n")
            #expect(stored.status == 0 && stored.stdout.isEmpty)

            try await emulator.controls.resetRequestCounts()
            let erased = try await cli.run(["git-credential", "erase"], input: "password=\(token)\n" + request)
            #expect(erased.status == 0)
            // The stale token sends this get the long way, which must answer the request the fast path read.
            let renewed = try await cli.run(["git-credential", "get"], input: "capability[]=authtype\n" + request)
            #expect(!renewed.stdout.contains(token) && renewed.stdout.contains("authtype=Bearer\ncredential="))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            #expect(try await cli.run(["status"]).status == 0, "the session is kept")

            let malformed = try await cli.run(["git-credential", "get"], input: "no equals sign\n")
            #expect(malformed.status == 64 && malformed.stdout.isEmpty)
        }
    }
}
