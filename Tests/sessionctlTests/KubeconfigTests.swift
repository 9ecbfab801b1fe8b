import AuthEmulator
import Foundation
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// `sessionctl kubeconfig` and `sessionctl token --output exec-credential` with the real kubectl, against
/// `scripts/kube-test-server.py` and the live emulator: kubectl runs exactly the user entry sessionctl printed.
@Suite(
    "sessionctl as kubectl's credential plugin, with the real kubectl",
    .enabled(if: KubeTestServer.kubectl != nil, "kubectl is not installed (on Debian: apt-get install kubectl)"))
struct KubeconfigTests {
    private static let autoSignIn = LiveEmulator.configuration { $0.autoSignInUser = AuthEmulator.User.aliceEmail }

    /// A CLI with the profile `work` saved for `emulator`, as the docs show (no `SESSIONCTL_` settings: kubectl runs
    /// the plugin with nothing but what the kubeconfig says).
    private func configured(_ emulator: AuthEmulator) async throws -> CLI {
        let cli = try CLI.make()
        let result = try await cli.run([
            "configure", "--profile", "work", "--issuer", emulator.issuer.absoluteString, "--client-id",
            AuthEmulator.Client.nativeID,
        ])
        #expect(result.status == 0, "\(result.output)")
        return cli
    }

    private func signIn(_ cli: CLI) async throws {
        let result = try await cli.run(
            ["login", "--profile", "work", "--password-stdin", "--username", AuthEmulator.User.aliceEmail],
            input: AuthEmulator.User.alicePassword + "\n")
        #expect(result.status == 0, "\(result.output)")
    }

    /// Runs `program arguments...` in `cli`'s environment with `extra` over it and a discovery cache of its own.
    private func run(_ program: String, _ arguments: [String], _ cli: CLI, extra: [String: String] = [:]) async throws
        -> CLI.Result
    {
        var environment = cli.processEnvironment.merging(extra) { $1 }
        environment["KUBECACHEDIR"] = cli.home.appendingPathComponent("kube-cache").path
        let process = try SpawnedProcess(path: program, arguments: arguments, environment: environment)
        try process.standardInput.close()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw TestFailure("\(program) \(arguments) did not finish in 60 s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return CLI.Result(
            status: process.terminationStatus,
            stdout: String(decoding: process.standardOutput.readDataToEndOfFile(), as: UTF8.self),
            stderr: String(decoding: process.standardError.readDataToEndOfFile(), as: UTF8.self))
    }

    private func token(_ cli: CLI, _ arguments: [String]) async throws -> String {
        let result = try await cli.run(["token", "--profile", "work"] + arguments)
        #expect(result.status == 0, "\(result.output)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("kubectl get pods with the printed user sends the ID token; with --access-token, the access token")
    func kubectlSendsTheIDToken() async throws {
        let kubectl = try #require(KubeTestServer.kubectl)
        try await LiveEmulator.with { emulator in
            let cli = try await configured(emulator)
            defer { cli.cleanUp() }
            try await signIn(cli)
            let server = try await KubeTestServer.start()
            defer { server.stop() }

            let printed = try await cli.run(["kubeconfig", "--profile", "work"])
            #expect(printed.status == 0, "\(printed.output)")
            #expect(printed.stdout.contains("      command: \(try CLI.binary())\n"), "\(printed.stdout)")
            #expect(printed.stdout.contains("      interactiveMode: Never\n      provideClusterInfo: false\n"))
            let kubeconfig = cli.home.appendingPathComponent("kubeconfig").path
            try (server.clusterConfig(user: "sessionctl-work") + printed.stdout).write(
                toFile: kubeconfig, atomically: true, encoding: .utf8)
            let pods = try await run(kubectl, ["--kubeconfig", kubeconfig, "--v=0", "get", "pods"], cli)
            #expect(pods.status == 0, "\(pods.output)")
            #expect(pods.output.contains("No resources found in default namespace"), "\(pods.output)")
            let idToken = try await token(cli, ["--id-token"])
            let seen = server.authorizations().filter { $0 != "none" }
            #expect(!seen.isEmpty && seen.allSatisfy { $0 == "Bearer " + idToken }, "the server saw the ID token")

            let access = try await cli.run(["kubeconfig", "--profile", "work", "--access-token", "--user", "api"])
            #expect(access.status == 0 && !access.stdout.contains("--id-token"), "\(access.output)")
            try (server.clusterConfig(user: "api") + access.stdout).write(
                toFile: kubeconfig, atomically: true, encoding: .utf8)
            let again = try await run(kubectl, ["--kubeconfig", kubeconfig, "--v=0", "get", "pods"], cli)
            #expect(again.status == 0, "\(again.output)")
            #expect(server.authorizations().last == "Bearer " + (try await token(cli, [])))
        }
    }

    @Test("no session and interactiveMode Never: kubectl fails and shows the sessionctl login to run")
    func noSessionNotInteractive() async throws {
        let kubectl = try #require(KubeTestServer.kubectl)
        try await LiveEmulator.with { emulator in
            let cli = try await configured(emulator)
            defer { cli.cleanUp() }
            let server = try await KubeTestServer.start()
            defer { server.stop() }
            let printed = try await cli.run(["kubeconfig", "--profile", "work"])
            let kubeconfig = cli.home.appendingPathComponent("kubeconfig").path
            try (server.clusterConfig(user: "sessionctl-work") + printed.stdout).write(
                toFile: kubeconfig, atomically: true, encoding: .utf8)
            let pods = try await run(kubectl, ["--kubeconfig", kubeconfig, "--v=0", "get", "pods"], cli)
            #expect(pods.status != 0, "\(pods.output)")
            #expect(
                pods.stderr.contains("no session is stored; sign in with: sessionctl login --profile work"),
                "\(pods.output)")
            #expect(pods.stderr.contains("sessionctl kubeconfig --interactive"), "\(pods.output)")
            #expect(!server.authorizations().contains { $0.hasPrefix("Bearer") })
        }
    }

    @Test(
        "--interactive: kubectl at a terminal lets sessionctl sign in (the browser), then sends the ID token",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) gives kubectl a tty"))
    func interactiveSignIn() async throws {
        let kubectl = try #require(KubeTestServer.kubectl)
        try await LiveEmulator.with(Self.autoSignIn) { emulator in
            var cli = try await configured(emulator)
            defer { cli.cleanUp() }
            // The browser drives the sign-in, and says something on its standard output, which must not reach kubectl.
            let (browser, opened) = try cli.browserScript(then: "echo browser-output; curl -s -L -o /dev/null \"$1\"")
            cli.environment["BROWSER"] = "\(browser) %s"
            let server = try await KubeTestServer.start()
            defer { server.stop() }

            // As the docs show: the user in a file of its own beside the kubeconfig, named in the current context.
            let kube = cli.home.appendingPathComponent(".kube").path
            try FileManager.default.createDirectory(atPath: kube, withIntermediateDirectories: true)
            try server.clusterConfig(user: nil).write(toFile: kube + "/config", atomically: true, encoding: .utf8)
            let printed = try await cli.run(["kubeconfig", "--profile", "work", "--interactive"])
            #expect(printed.stdout.contains("interactiveMode: IfAvailable"), "\(printed.output)")
            try printed.stdout.write(toFile: kube + "/sessionctl-work.yaml", atomically: true, encoding: .utf8)
            let environment = ["KUBECONFIG": kube + "/config:" + kube + "/sessionctl-work.yaml"]
            let context = try await run(
                kubectl, ["config", "set-context", "--current", "--user", "sessionctl-work"], cli, extra: environment)
            #expect(context.status == 0, "\(context.output)")

            // script(1) runs kubectl on a pseudo-terminal: kubectl then tells the plugin that a person is there.
            let pods = try await run(
                "/usr/bin/script", ["-q", "-e", "-c", "\(kubectl) get pods --v=0", "/dev/null"], cli, extra: environment
            )
            #expect(pods.status == 0, "\(pods.output)")
            #expect(pods.stdout.contains("No resources found in default namespace"), "\(pods.output)")
            #expect(pods.stdout.contains("kubectl needs a sign-in for profile 'work'"), "\(pods.output)")
            #expect(pods.stdout.contains("browser-output"), "the browser's output went to the terminal")
            #expect(try String(contentsOf: opened, encoding: .utf8).contains("/start/"))
            let idToken = try await token(cli, ["--id-token"])
            #expect(server.authorizations().contains("Bearer " + idToken), "\(server.authorizations())")
            #expect(try await cli.run(["status", "--profile", "work"]).status == 0, "the session was stored")
        }
    }
}
