package import Foundation

/// A script that tests write and then run as a program (a `$BROWSER`, a `swift` shim), put in place without an open
/// file descriptor for writing ever being in the test process.
///
/// A file written in the test process and then run can fail with "Text file busy" (`ETXTBSY`): while it is being
/// written, another test's `fork` copies the writing descriptor into a child that keeps it until its `exec`, and a
/// program cannot run while any process has it open for writing. Here the text goes to a side file, and `install`,
/// a process of its own, writes the script: when it has exited, no process anywhere holds the script open.
package enum ExecutableScript {
    /// Writes `text` to `url`, mode 0755.
    package static func write(_ text: String, to url: URL) throws {
        let draft = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).draft")
        try text.write(to: draft, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: draft) }
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/usr/bin/install")
        install.arguments = ["-m", "0755", draft.path, url.path]
        try install.run()
        install.waitUntilExit()
        guard install.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: ["reason": "install could not write \(url.path)"])
        }
    }
}
