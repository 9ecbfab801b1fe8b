import AuthEmulator
import Foundation
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// `sessionctl git-credential configure` with the real git: it writes the helper into a throw-away global git config
/// (`GIT_CONFIG_GLOBAL`), and then plain `git clone` of the test forge works with no other setup; `--unconfigure`
/// gives the config back as it was.
@Suite("sessionctl git-credential configure, with the real git")
struct GitCredentialConfigureTests {
    /// A home whose git config is its own file, and the profile `forge` saved as the docs show (no `SESSIONCTL_`
    /// variables: git runs the helper with nothing but what configure wrote).
    struct Setup {
        var cli: CLI
        let globalConfig: String

        static func make(_ emulator: AuthEmulator) async throws -> Setup {
            var cli = try CLI.make()
            let globalConfig = cli.home.appendingPathComponent("gitconfig").path
            cli.environment["GIT_CONFIG_GLOBAL"] = globalConfig
            cli.environment["GIT_CONFIG_NOSYSTEM"] = "1"
            let configured = try await cli.run([
                "configure", "--profile", "forge", "--issuer", emulator.issuer.absoluteString, "--client-id",
                AuthEmulator.Client.nativeID,
            ])
            #expect(configured.status == 0, "\(configured.output)")
            let login = try await cli.run(
                ["login", "--profile", "forge", "--password-stdin", "--username", AuthEmulator.User.aliceEmail],
                input: AuthEmulator.User.alicePassword + "\n")
            #expect(login.status == 0, "\(login.output)")
            return Setup(cli: cli, globalConfig: globalConfig)
        }

        /// Runs git in `directory` with this home's environment, its global config, no prompt.
        @discardableResult
        func git(_ arguments: [String], in directory: String? = nil) async throws -> CLI.Result {
            var environment = cli.processEnvironment
            environment["GIT_TERMINAL_PROMPT"] = "0"
            environment["GIT_ASKPASS"] = "/bin/false"
            let process = try SpawnedProcess(
                path: "/usr/bin/git", arguments: ["-C", directory ?? cli.home.path] + arguments,
                environment: environment)
            try process.standardInput.close()
            return try await CLI.Result.of(process)
        }

        /// The values of `key` in the global config.
        func values(_ key: String) async throws -> [String] {
            let result = try await git(["config", "--global", "-z", "--get-all", key])
            return result.stdout.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    @Test("configure, then git clone sends the token; a second configure writes nothing; --unconfigure restores")
    func configureCloneUnconfigure() async throws {
        try await LiveEmulator.with { emulator in
            let setup = try await Setup.make(emulator)
            let cli = setup.cli
            defer { cli.cleanUp() }
            let forge = try await GitCredentialTests.Forge.start(cli, emulator: emulator)
            defer { forge.stop() }
            let key = "credential.http://127.0.0.1:\(forge.port).helper"
            // What the user had: a store helper for every host, and a helper of their own for this forge.
            try await setup.git(["config", "--global", "credential.helper", "store"])
            try await setup.git(["config", "--global", "--add", key, "cache --timeout=5"])
            try await setup.git(["config", "--global", "user.name", "T"])
            let before = try await setup.git(["config", "--global", "--list"])
            #expect(before.status == 0)
            let claimsBefore = try String(contentsOf: cli.configFile, encoding: .utf8)

            let configured = try await cli.run([
                "git-credential", "configure", "--profile", "forge", "--host", "http://127.0.0.1:\(forge.port)",
            ])
            #expect(configured.status == 0, "\(configured.output)")
            let helper = "!" + (try CLI.binary()) + " git-credential --profile forge"
            #expect(try await setup.values(key) == ["cache --timeout=5", "", helper])
            #expect(configured.stdout.contains("git config --global --add \(key) ''"), "\(configured.stdout)")
            #expect(configured.stdout.contains("Saved git host 127.0.0.1:\(forge.port) for profile 'forge'"))
            #expect(try await setup.values("credential.helper") == ["store"], "no unscoped helper is written")

            let listed = try await setup.git(["ls-remote", forge.url])
            #expect(listed.status == 0, "\(listed.stderr)")
            let clone = cli.home.appendingPathComponent("clone").path
            let cloned = try await setup.git(["clone", "-q", forge.url, clone])
            #expect(cloned.status == 0, "\(cloned.stderr)")
            #expect(FileManager.default.fileExists(atPath: clone + "/README"))
            #expect(try forge.authorizations().contains(true), "git sent the token")
            let stored = cli.home.appendingPathComponent(".git-credentials").path
            #expect(!FileManager.default.fileExists(atPath: stored), "the store helper was neither asked nor told")

            let again = try await cli.run([
                "git-credential", "configure", "--profile", "forge", "--host", "http://127.0.0.1:\(forge.port)",
            ])
            #expect(again.status == 0 && again.stdout.contains("nothing was written"), "\(again.output)")
            #expect(try await setup.values(key) == ["cache --timeout=5", "", helper], "no duplicate entries")

            let removed = try await cli.run([
                "git-credential", "configure", "--unconfigure", "--profile", "forge", "--host",
                "http://127.0.0.1:\(forge.port)",
            ])
            #expect(removed.status == 0, "\(removed.output)")
            #expect(try await setup.git(["config", "--global", "--list"]).stdout == before.stdout)
            #expect(try String(contentsOf: cli.configFile, encoding: .utf8) == claimsBefore, "the git host is gone")
            let refused = try await setup.git(["ls-remote", forge.url])
            #expect(refused.status != 0, "without the helper git has no credential: \(refused.stdout)")
        }
    }

    @Test("the forge defaults to the issuer (no claim saved); --local writes the repository; an older line is replaced")
    func issuerLocalAndReplace() async throws {
        try await LiveEmulator.with { emulator in
            var setup = try await Setup.make(emulator)
            defer { setup.cli.cleanUp() }
            let issuer = "http://127.0.0.1:\(try #require(emulator.issuer.port))"
            let key = "credential.\(issuer).helper"
            // The line the docs had people write by hand: configure replaces it rather than adding a second.
            try await setup.git(["config", "--global", key, "!sessionctl git-credential --profile forge"])
            let configured = try await setup.cli.run(["git-credential", "configure", "--profile", "forge"])
            #expect(configured.status == 0, "\(configured.output)")
            #expect(!configured.stdout.contains("Saved git host"), "the issuer's own host needs no claim")
            #expect(try await setup.values(key) == ["", "!" + (try CLI.binary()) + " git-credential --profile forge"])

            let repository = setup.cli.home.appendingPathComponent("repo").path
            try await setup.git(["init", "-q", repository])
            var inRepository = setup
            inRepository.cli.environment["GIT_DIR"] = repository + "/.git"
            let local = try await inRepository.cli.run(["git-credential", "configure", "--profile", "forge", "--local"])
            #expect(local.status == 0, "\(local.output)")
            let localValues = try await setup.git(["config", "--local", "--get-all", key], in: repository)
            #expect(localValues.stdout.hasSuffix("git-credential --profile forge\n"), "\(localValues.output)")

            // Outside a repository --local says what to do; a profile without an issuer needs --host.
            setup.cli.environment["GIT_DIR"] = setup.cli.home.appendingPathComponent("nowhere").path
            let outside = try await setup.cli.run(["git-credential", "configure", "--profile", "forge", "--local"])
            #expect(outside.status == 4 && outside.stderr.contains("run it inside the repository"), "\(outside.output)")
            let unconfigured = try await setup.cli.run(["git-credential", "configure", "--profile", "nobody"])
            #expect(unconfigured.status == 4 && unconfigured.stderr.contains("--host"), "\(unconfigured.output)")
            let plain = try await setup.cli.run(["git-credential", "configure", "--host", "http://git.example.com"])
            #expect(plain.status == 64 && plain.stderr.contains("https"), "\(plain.output)")
        }
    }
}

extension CLI {
    /// sessionctl's config file in this home.
    var configFile: URL { home.appendingPathComponent("config/sessionctl/config.json") }
}
