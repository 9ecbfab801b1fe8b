import Foundation
import SessionKitTestSupport
import Testing

extension CLI.Running {
    /// The start link `login --browser` printed on standard error.
    func startLink(timeout: Duration = .seconds(30)) async throws -> URL {
        let shown = try await waitForStderr(containing: "Waiting for the browser", timeout: timeout)
        let line = try #require(shown.split(separator: "\n").first { $0.contains("/start/") })
        return try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
    }
}

extension CLI {
    /// A `BROWSER` script in this CLI's home that records its arguments, one a line, in `opened`, then runs
    /// `then` (a shell command line, with the URL as `$1`).
    func browserScript(then: String = "") throws -> (script: String, record: URL) {
        let record = home.appendingPathComponent("opened")
        let script = home.appendingPathComponent("browser.sh")
        try ExecutableScript.write("#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(record.path)'\n\(then)\n", to: script)
        return (script.path, record)
    }
}
