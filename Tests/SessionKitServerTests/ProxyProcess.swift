import Foundation
import SecureStore

#if canImport(Glibc)
    import Glibc
#endif

/// One of the loopback proxies to PostgreSQL in `scripts/` (`refuse-tls-proxy.py`, `lost-commit-proxy.py`), in a
/// process of its own: it prints the port it listens on, then serves until stopped.
final class ProxyProcess {
    let port: Int
    private let process: Process

    /// Starts `scripts/<script>` with `arguments` and waits for its port.
    init(script: String, arguments: [String]) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/\(script)").path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            kill(process.processIdentifier, SIGKILL)
            throw SecureStoreError(code: .unavailable, message: "the proxy \(script) did not start")
        }
        self.port = port
    }

    /// Ends the proxy with SIGKILL: it inherits the test process's ignored SIGTERM, so `terminate()` would not.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
