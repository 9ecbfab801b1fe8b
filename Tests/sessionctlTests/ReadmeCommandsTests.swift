import AuthEmulator
import Foundation
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// The README's terminal quick start, run line by line exactly as printed, in a fresh home: `swift run` is served by
/// the binaries this test run built (a shim named `swift` first on `PATH`, so nothing is built again), `sessionctl`
/// is the built one, and `$BROWSER` is a script that fills the emulator's sign-in form as alice would.
@Suite("The README's commands, as printed", .serialized)
struct ReadmeCommandsTests {
    /// The lines of the ```sh block under `heading` in the README.
    static func shellLines(under heading: String) throws -> [String] {
        let readme = try String(
            contentsOfFile: FileManager.default.currentDirectoryPath + "/README.md", encoding: .utf8)
        let section = try #require(readme.range(of: heading)).upperBound
        let rest = readme[section...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }

    /// What a run of README lines printed, and how it ended.
    struct Run {
        let status: Int32
        let output: String
        let errors: String
    }

    /// Runs `lines` as printed, in `cli`'s fresh home, then `after` (what a person does next, such as opening the
    /// page): `swift run NAME` runs the built NAME, `$BROWSER` fills the emulator's sign-in form as alice, and
    /// after a line that starts a server on a port in the background the next waits until that port answers, as a
    /// person would.
    static func run(
        _ lines: [String], in cli: CLI, page: URL, before: String = "", after: String = "", then url: String? = nil,
        environment extra: [String: String] = [:]
    ) async throws -> Run {
        let bin = cli.home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        // `swift run NAME ARGS...` runs the built NAME; anything else is refused, so a line that needs more fails.
        let shim = bin.appendingPathComponent("swift")
        let built = URL(fileURLWithPath: try CLI.binary()).deletingLastPathComponent().path
        try ExecutableScript.write(
            """
            #!/bin/bash
            [ "$1" = run ] || { echo "the README test's swift shim runs built programs only: $*" >&2; exit 64; }
            shift; name=$1; shift
            exec '\(built)'/"$name" "$@"
            """, to: shim)
        var environment = cli.processEnvironment
        environment["PATH"] = bin.path + ":" + built + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["BROWSER"] =
            "/usr/bin/python3 " + FileManager.default.currentDirectoryPath + "/scripts/form-browser.py"
        environment["FORM_BROWSER_USER"] = AuthEmulator.User.aliceEmail
        environment["FORM_BROWSER_PASSWORD"] = AuthEmulator.User.alicePassword
        environment["FORM_BROWSER_PAGE"] = page.path
        if let url { environment["FORM_BROWSER_THEN"] = url }
        environment["SESSIONCTL_STORE"] = "file"
        environment.merge(extra) { $1 }
        // The script leads a session of its own (setsid): its watchdog ends every process the lines started, so a
        // line that hangs fails the test instead of holding it.
        var script = """
            set -e
            ( exec >/dev/null 2>&1; sleep 45 & pause=$!; trap "kill $pause; exit" TERM; wait $pause; kill -KILL -- -$$ ) &
            trap 'kill $(jobs -p) 2>/dev/null' EXIT

            """
        script += before
        for line in lines {
            script += line + "\n"
            let code = line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? line
            guard code.trimmingCharacters(in: .whitespaces).hasSuffix("&") else { continue }
            let port = code.contains("--port 9400") ? 9400 : code.contains("sessionkit-bff") ? 8080 : nil
            if let port {
                script +=
                    "for i in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/\(port)) 2>/dev/null && break; sleep 0.1; done\n"
            }
        }
        script += after
        let file = cli.home.appendingPathComponent("readme.sh")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let process = try SpawnedProcess(
            path: "/usr/bin/setsid", arguments: ["--wait", "/bin/bash", file.path], environment: environment)
        try process.standardInput.close()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        return Run(
            status: process.terminationStatus,
            output: String(decoding: process.standardOutput.readDataToEndOfFile(), as: UTF8.self),
            errors: String(decoding: process.standardError.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test("the terminal quick start: the emulator, configure, login in the browser, a token")
    func terminalQuickStart() async throws {
        let lines = try Self.shellLines(under: "## Quick start: the terminal")
        #expect(lines.count == 4, "\(lines)")
        let cli = try CLI.make()
        defer { cli.cleanUp() }
        let page = cli.home.appendingPathComponent("page.html")
        let run = try await Self.run(lines, in: cli, page: page)
        #expect(run.status == 0, "\(run.errors)")
        // The last line's token: a JWT, and the browser's page said who signed in.
        let token = try #require(run.output.split(separator: "\n").last.map(String.init))
        #expect(token.split(separator: ".").count == 3, "\(run.output)")
        #expect(try String(contentsOf: page, encoding: .utf8).contains("Signed in as"))
    }

    /// The cluster `scripts/postgres-start.sh` started in this checkout, which the server quick start's first line
    /// finds running (CI starts it before the tests); `nil` when there is none.
    static var checkoutCluster: String? {
        let state = FileManager.default.currentDirectoryPath + "/.postgres"
        guard let pid = try? String(contentsOfFile: state + "/pid", encoding: .utf8),
            let number = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)), kill(number, 0) == 0
        else { return nil }
        return try? String(contentsOfFile: state + "/url", encoding: .utf8)
    }

    @Test(
        "the server quick start: PostgreSQL, the emulator, the back end; alice signs in and reads /api/userinfo",
        .enabled(
            if: checkoutCluster != nil || ProcessInfo.processInfo.environment["SESSIONKIT_REQUIRE_POSTGRES"] == "1",
            "needs the PostgreSQL of scripts/postgres-start.sh in this checkout (CI starts it)"))
    func serverQuickStart() async throws {
        let lines = try Self.shellLines(under: "## Quick start: a server")
        #expect(lines.count == 3, "\(lines)")
        let cli = try CLI.make()
        defer { cli.cleanUp() }
        let page = cli.home.appendingPathComponent("page.html")
        // Then what a person does: open the page and sign in (the browser), and the page's script reads the API.
        // The example's sealing key lives in its state folder; the database outlives a test's home, so the key is
        // kept beside the cluster, as a person's own folder keeps it beside their database.
        let state = FileManager.default.currentDirectoryPath + "/.postgres/readme-state"
        let run = try await Self.run(
            lines, in: cli, page: page, after: "$BROWSER http://127.0.0.1:8080/auth/login\n",
            then: "http://127.0.0.1:8080/api/userinfo", environment: ["XDG_STATE_HOME": state])
        #expect(run.status == 0, "\(run.errors)")
        let answered = try String(contentsOf: page, encoding: .utf8)
        #expect(answered.contains("\"email\":\"\(AuthEmulator.User.aliceEmail)\""), "\(answered)")
    }

    @Test(
        "git and kubectl: configure the forge, git clone over https, the kubeconfig user, kubectl get pods",
        .enabled(if: KubeTestServer.kubectl != nil, "needs kubectl on PATH (CI installs it)"))
    func gitAndKubectl() async throws {
        let quickStart = try Self.shellLines(under: "## Quick start: the terminal")
        let lines = try Self.shellLines(under: "get their tokens from it")
        #expect(lines.count == 4, "\(lines)")
        let cli = try CLI.make()
        defer { cli.cleanUp() }
        // What the user has before: a cluster their admin handed out, in ~/.kube/config.
        let cluster = try await KubeTestServer.start()
        defer { cluster.stop() }
        let kube = cli.home.appendingPathComponent(".kube")
        try FileManager.default.createDirectory(at: kube, withIntermediateDirectories: true)
        try cluster.clusterConfig(user: nil).write(
            to: kube.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        // A forge at https://git.example.com/team/app.git: the git test server, which lets a request through with a
        // token the provider (the quick start's emulator, port 9400) accepts, behind a proxy that answers for the
        // name with a private authority's certificate. The name resolves nowhere else.
        let root = try TemporaryFolder(prefix: "readme-forge").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await GitCredentialTests.Forge.makeRepository(at: root + "/team/app.git")
        let portFile = root + "/port"
        let forge = try SpawnedProcess(
            path: "/usr/bin/python3",
            arguments: [
                FileManager.default.currentDirectoryPath + "/scripts/git-test-server.py", "--root", root,
                "--userinfo", "http://127.0.0.1:9400/userinfo", "--port-file", portFile, "--log", root + "/log",
            ],
            environment: ProcessInfo.processInfo.environment)
        defer { forge.terminate() }
        while !FileManager.default.fileExists(atPath: portFile) { try await Task.sleep(for: .milliseconds(20)) }
        let forgePort = try #require(Int(try String(contentsOfFile: portFile, encoding: .utf8)))
        let proxy = try await ProxyTestServer.start(host: "git.example.com", backend: forgePort)
        defer { Task { await proxy.stop() } }
        var environment = proxy.environment()
        environment["GIT_SSL_CAINFO"] = proxy.authority
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        let page = cli.home.appendingPathComponent("page.html")
        let run = try await Self.run(
            quickStart + lines, in: cli, page: page, before: "cd \"$HOME\"\n", environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        #expect(FileManager.default.fileExists(atPath: cli.home.path + "/app/README"), "git cloned: \(run.errors)")
        #expect(proxy.requests().contains("CONNECT git.example.com:443"), "\(proxy.requests())")
        #expect(
            (run.output + run.errors).contains("No resources found in default namespace"), "\(run.output)\(run.errors)")
        let bearers = cluster.authorizations().filter { $0.hasPrefix("Bearer ") }
        #expect(!bearers.isEmpty && bearers.allSatisfy { $0.split(separator: ".").count == 3 }, "kubectl sent a JWT")
    }
}
