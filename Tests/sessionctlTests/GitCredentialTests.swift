import AuthEmulator
import Foundation
import SessionKit
import SessionKitTestSupport
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
        /// The port the server listens on, at 127.0.0.1.
        let port: Int
        let url: String

        static func start(_ cli: CLI, emulator: AuthEmulator) async throws -> Forge {
            let folder = try TemporaryFolder(prefix: "sessionctl-git").url.path
            try await makeRepository(at: folder + "/repo.git")
            let portFile = folder + "/port"
            let log = folder + "/requests.log"
            let script = FileManager.default.currentDirectoryPath + "/scripts/git-test-server.py"
            let server = try SpawnedProcess(
                path: "/usr/bin/python3",
                arguments: [
                    script, "--root", folder, "--userinfo", emulator.issuer.absoluteString + "userinfo", "--port-file",
                    portFile, "--log", log,
                ],
                environment: ProcessInfo.processInfo.environment)
            let started = ContinuousClock.now
            while !FileManager.default.fileExists(atPath: portFile) {
                guard server.isRunning, ContinuousClock.now - started < .seconds(20) else {
                    throw TestFailure("the git server did not start")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            let port = try #require(Int(try String(contentsOfFile: portFile, encoding: .utf8)))
            return Forge(
                cli: cli, folder: folder, server: server, port: port, url: "http://127.0.0.1:\(port)/repo.git")
        }

        /// A bare repository at `path` with one commit on `main`, a README, made from a seed folder beside it.
        static func makeRepository(at path: String) async throws {
            let seed = path + ".seed"
            try FileManager.default.createDirectory(atPath: seed, withIntermediateDirectories: true)
            try await run(["init", "--bare", "-q", path], in: seed)
            try await run(["init", "-q", "-b", "main", seed], in: seed)
            try "hello\n".write(toFile: seed + "/README", atomically: true, encoding: .utf8)
            try await run(["add", "README"], in: seed)
            try await run(
                ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one"], in: seed)
            try await run(["push", "-q", path, "main"], in: seed)
            try await run(["symbolic-ref", "HEAD", "refs/heads/main"], in: path)
        }

        /// For each request the server received so far, whether it carried an `Authorization` header.
        func authorizations() throws -> [Bool] {
            let log = (try? String(contentsOfFile: folder + "/requests.log", encoding: .utf8)) ?? ""
            return log.split(separator: "\n").map { $0 == "authorization" }
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
            return try await CLI.Result.of(process)
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
            try await cli.claimGitHosts(["127.0.0.1:\(forge.port)"], emulator: emulator)
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
            try await cli.claimGitHosts(["forge.example.com"], emulator: emulator)
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

            // An erase for a host no profile claims is refused like a get: the token is not marked stale.
            try await emulator.controls.resetRequestCounts()
            let elsewhere = "protocol=https\nhost=other.example.com\npassword=\(token)\n\n"
            let ignored = try await cli.run(["git-credential", "erase"], input: elsewhere)
            #expect(ignored.status == 0 && ignored.stderr.contains("--git-host other.example.com:443"))
            #expect(try await cli.run(["git-credential", "get"], input: request).stdout.contains(token))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 0)

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

    @Test("a forge on a host and port no profile claims gets no token: git sends no Authorization at all")
    func unclaimedForge() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let forge = try await Forge.start(cli, emulator: emulator)
            defer { forge.stop() }
            try await cli.claimGitHosts(["127.0.0.1:\(forge.port)"], emulator: emulator)
            // The same server by another name: localhost is not 127.0.0.1 for the claim.
            let other = "http://localhost:\(forge.port)/repo.git"
            let refused = try await forge.git(["ls-remote", other])
            #expect(refused.status != 0, "\(refused.stdout)")
            #expect(refused.stderr.contains("--git-host localhost:\(forge.port)"), "\(refused.stderr)")
            #expect(try forge.authorizations().allSatisfy { !$0 }, "no request carried a credential")
            #expect(try !forge.authorizations().isEmpty, "git did reach the server")

            let claimed = try await forge.git(["ls-remote", forge.url])
            #expect(claimed.status == 0, "\(claimed.stderr)")
            #expect(try forge.authorizations().contains(true))
        }
    }

    @Test("git's host, port and protocol must be claimed by exactly one profile, the one named if one is")
    func hostClaims() async throws {
        try await LiveEmulator.with { emulator in
            let cli = try CLI.make(for: emulator)
            defer { cli.cleanUp() }
            try await cli.signIn()
            let token = try await cli.run(["token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            func get(_ request: String, _ options: [String] = []) async throws -> CLI.Result {
                try await cli.run(["git-credential"] + options + ["get"], input: request + "\n")
            }
            func refused(_ result: CLI.Result, saying advice: String) {
                #expect(result.status == 0 && result.stdout.isEmpty, "\(result.stdout)")
                #expect(!result.output.contains(token))
                #expect(result.stderr.contains(advice), "\(result.stderr)")
            }
            let https = "protocol=https\nhost=forge.example.com\n"
            refused(
                try await get(https), saying: "sessionctl configure --profile default --git-host forge.example.com:443")
            try await cli.claimGitHosts(["forge.example.com", "[::1]:8443"], emulator: emulator)
            #expect(try await get(https).stdout.contains("password=\(token)"))
            #expect(try await get("protocol=https\nhost=FORGE.example.com:443\n").stdout.contains(token))
            // Another port of the same host is another forge.
            refused(
                try await get("protocol=https\nhost=forge.example.com:8443\n"),
                saying: "sessionctl configure --profile default --git-host forge.example.com:8443")
            #expect(try await get("protocol=https\nhost=[::1]:8443\n").stdout.contains(token))
            // The issuer's own host and port are claimed (a forge that is its own provider).
            let issuer = try #require(emulator.issuer.host).lowercased() + ":\(try #require(emulator.issuer.port))"
            #expect(try await get("protocol=http\nhost=\(issuer)\n").stdout.contains(token), "loopback http")

            // Plain http to another host, only with --allow-http; other protocols never.
            let http = "protocol=http\nhost=forge.example.com:443\n"
            refused(try await get(http), saying: "--allow-http")
            #expect(try await get(http, ["--allow-http"]).stdout.contains(token))
            #expect(try await get(http, ["--min-ttl=1", "--allow-http"]).stdout.contains(token))
            refused(try await get("protocol=ftp\nhost=forge.example.com:443\n", ["--allow-http"]), saying: "ftp")
            refused(try await get("protocol=https\n"), saying: "host")

            // Two profiles claim the host: refused unless one is named, and only the one named answers.
            let second = try await cli.run([
                "configure", "--profile", "second", "--issuer", emulator.issuer.absoluteString, "--client-id",
                AuthEmulator.Client.nativeID, "--git-host", "forge.example.com:443",
            ])
            #expect(second.status == 0, "\(second.output)")
            refused(try await get(https), saying: "profiles 'default', 'second' all claim forge.example.com:443")
            refused(try await get(https), saying: "credential.https://forge.example.com.helper '!sessionctl")
            #expect(try await get(https, ["--profile", "default"]).stdout.contains(token))
            let unnamed = try await get("protocol=https\nhost=[::1]:8443\n", ["--profile", "second"])
            refused(unnamed, saying: "sessionctl configure --profile second --git-host '[::1]:8443'")

            // --no-git-hosts takes the claims back.
            let cleared = try await cli.run(["configure", "--profile", "second", "--no-git-hosts"])
            #expect(cleared.status == 0, "\(cleared.output)")
            #expect(try await get(https).stdout.contains(token))
        }
    }
}

extension CLI {
    /// Saves the emulator's issuer and client id for `profile`, and `hosts` as the git hosts it claims.
    func claimGitHosts(_ hosts: [String], emulator: AuthEmulator, profile: String = "default") async throws {
        let result = try await run(
            [
                "configure", "--profile", profile, "--issuer", emulator.issuer.absoluteString, "--client-id",
                AuthEmulator.Client.nativeID,
            ] + hosts.flatMap { ["--git-host", $0] })
        #expect(result.status == 0, "configure failed: \(result.output)")
    }
}
