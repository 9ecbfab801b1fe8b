import Foundation
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// `scripts/provider-stand-in.py`: a provider on loopback that says what a test scripts, hostile text included.
struct ProviderStandIn {
    let folder: String
    let server: SpawnedProcess
    /// The issuer, `http://127.0.0.1:PORT/`.
    let issuer: String

    /// Starts the stand-in with `answers` (see the script for their form).
    static func start(_ answers: [String: Any] = [:]) async throws -> ProviderStandIn {
        let folder = try TemporaryFolder(prefix: "sessionctl-provider").url.path
        let portFile = folder + "/port"
        let script = FileManager.default.currentDirectoryPath + "/scripts/provider-stand-in.py"
        let server = try SpawnedProcess(
            path: "/usr/bin/python3",
            arguments: [script, "--answers", folder + "/answers.json", "--port-file", portFile],
            environment: ProcessInfo.processInfo.environment)
        let started = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: portFile) {
            guard server.isRunning, ContinuousClock.now - started < .seconds(20) else {
                throw TestFailure("the provider stand-in did not start")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let port = try String(contentsOfFile: portFile, encoding: .utf8)
        let standIn = ProviderStandIn(folder: folder, server: server, issuer: "http://127.0.0.1:\(port)/")
        try standIn.answer(answers)
        return standIn
    }

    /// Replaces the scripted answers; the next request reads them.
    func answer(_ answers: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: answers)
        try data.write(to: URL(fileURLWithPath: folder + "/answers.json"), options: .atomic)
    }

    /// A CLI in a fresh home configured (by environment) for this provider.
    func cli() throws -> CLI {
        try CLI.make(extra: ["SESSIONCTL_ISSUER": issuer, "SESSIONCTL_CLIENT_ID": "stand-in-client"])
    }

    func stop() {
        server.terminate()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
