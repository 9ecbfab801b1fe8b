import AuthEmulator
import Foundation
import SessionKitTestSupport
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

    @Test("the terminal quick start: the emulator, configure, login in the browser, a token")
    func terminalQuickStart() async throws {
        let lines = try Self.shellLines(under: "## Quick start: the terminal")
        #expect(lines.count == 4, "\(lines)")
        let cli = try CLI.make()
        defer { cli.cleanUp() }
        let bin = cli.home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        // `swift run NAME ARGS...` runs the built NAME; anything else is refused, so a line that needs more fails.
        let shim = bin.appendingPathComponent("swift")
        let built = URL(fileURLWithPath: try CLI.binary()).deletingLastPathComponent().path
        try """
        #!/bin/bash
        [ "$1" = run ] || { echo "the README test's swift shim runs built programs only: $*" >&2; exit 64; }
        shift; name=$1; shift
        exec '\(built)'/"$name" "$@"
        """.write(to: shim, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: shim.path)
        let page = cli.home.appendingPathComponent("page.html")
        var environment = cli.processEnvironment
        environment["PATH"] = bin.path + ":" + built + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["BROWSER"] =
            "/usr/bin/python3 " + FileManager.default.currentDirectoryPath + "/scripts/form-browser.py"
        environment["FORM_BROWSER_USER"] = AuthEmulator.User.aliceEmail
        environment["FORM_BROWSER_PASSWORD"] = AuthEmulator.User.alicePassword
        environment["FORM_BROWSER_PAGE"] = page.path
        environment["SESSIONCTL_STORE"] = "file"
        // Each line as printed; after a line that starts a server in the background, wait until its port answers,
        // as a person would before typing the next one.
        // The script leads a session of its own (setsid): its watchdog ends every process the lines started, so a
        // line that hangs fails the test instead of holding it.
        var script = """
            set -e
            ( exec >/dev/null 2>&1; sleep 45 & pause=$!; trap "kill $pause; exit" TERM; wait $pause; kill -KILL -- -$$ ) &
            trap 'kill $(jobs -p) 2>/dev/null' EXIT

            """
        for line in lines {
            script += line + "\n"
            if line.contains("--port 9400 &") {
                script +=
                    "for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/9400) 2>/dev/null && break; sleep 0.1; done\n"
            }
        }
        let file = cli.home.appendingPathComponent("readme.sh")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let process = try SpawnedProcess(
            path: "/usr/bin/setsid", arguments: ["--wait", "/bin/bash", file.path], environment: environment)
        try process.standardInput.close()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        let output = String(decoding: process.standardOutput.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: process.standardError.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(errors)")
        // The last line's token: a JWT, and the browser's page said who signed in.
        let token = try #require(output.split(separator: "\n").last.map(String.init))
        #expect(token.split(separator: ".").count == 3, "\(output)")
        #expect(try String(contentsOf: page, encoding: .utf8).contains("Signed in as"))
    }
}
