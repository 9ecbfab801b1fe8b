import Foundation
import SessionKit
import SessionKitTestSupport
import Testing

/// `$BROWSER` as git, gh and Python's webbrowser read it, with real child processes.
@Suite("SystemBrowser: $BROWSER before xdg-open/open")
struct SystemBrowserTests {
    private let url = URL(string: "http://127.0.0.1:5000/start/abc")!

    @Test("commands: %s replaced, else the URL appended; ':' separates commands; quotes group words")
    func commands() {
        let commands = SystemBrowser.commands(for: url, browser: "firefox --new-tab:w3m '%s' -o 'x y':")
        #expect(commands.count == 3)
        #expect(commands[0] == ["firefox", "--new-tab", url.absoluteString])
        #expect(commands[1] == ["w3m", url.absoluteString, "-o", "x y"])
        #expect(commands[2].last == url.absoluteString, "the system opener comes last")
        #expect(SystemBrowser.commands(for: url, browser: nil).count == 1)
    }

    @Test("open runs $BROWSER with the URL; a failing command falls back to the next")
    func open() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = folder.appendingPathComponent("opened")
        let script = folder.appendingPathComponent("browser.sh")
        try ExecutableScript.write("#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(record.path)'\n", to: script)

        #expect(await SystemBrowser.open(url, browser: "false:\(script.path) --flag %s"))
        #expect(try String(contentsOf: record, encoding: .utf8) == "--flag\n\(url.absoluteString)\n")
        try FileManager.default.removeItem(at: record)
        #expect(await SystemBrowser.open(url, browser: script.path))
        #expect(try String(contentsOf: record, encoding: .utf8) == "\(url.absoluteString)\n")
    }

    /// Whether the system opener is installed (it would then open a real browser).
    static let hasOpener = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/xdg-open")
    }

    @Test("when every command fails, open says so (the caller then prints the URL)", .enabled(if: !hasOpener))
    func allFail() async throws {
        #expect(await !SystemBrowser.open(url, browser: "false:/nonexistent/browser"))
    }
}
