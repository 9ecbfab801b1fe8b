import Foundation
import SecureStore

#if canImport(Glibc)
    import Glibc
#endif

/// `scripts/postgres-proxy.py` in a process of its own: a loopback port where PostgreSQL offers no TLS and, when
/// asked, loses one commit. It prints the port it listens on, then serves until stopped.
final class ProxyProcess {
    let port: Int
    private let process: Process

    /// Starts the proxy with `arguments` (the upstream port, and a pattern to lose a commit) and waits for its port.
    init(arguments: [String]) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/postgres-proxy.py").path] + arguments
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
            throw SecureStoreError(code: .unavailable, message: "scripts/postgres-proxy.py did not start")
        }
        self.port = port
    }

    /// Ends the proxy with SIGKILL: it inherits the test process's ignored SIGTERM, so `terminate()` would not.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
