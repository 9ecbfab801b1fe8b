import Foundation
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// `scripts/kube-test-server.py`: a stand-in Kubernetes API server on 127.0.0.1 (https, its own certificate) that
/// answers `kubectl get pods` and writes each request's `Authorization` header to a log.
struct KubeTestServer {
    let folder: String
    let server: SpawnedProcess
    let port: Int

    /// The server's certificate, for the kubeconfig's `certificate-authority`.
    var certificate: String { folder + "/server.pem" }

    static func start() async throws -> KubeTestServer {
        let folder = try TemporaryFolder(prefix: "sessionctl-kube").path
        let portFile = folder + "/port"
        let script = FileManager.default.currentDirectoryPath + "/scripts/kube-test-server.py"
        let server = try SpawnedProcess(
            path: "/usr/bin/python3",
            arguments: [
                script, "--port-file", portFile, "--log", folder + "/requests.log", "--cert-file",
                folder + "/server.pem",
            ],
            environment: ProcessInfo.processInfo.environment)
        let started = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: portFile) {
            guard server.isRunning, ContinuousClock.now - started < .seconds(20) else {
                throw TestFailure("the Kubernetes test server did not start")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let port = try #require(Int(try String(contentsOfFile: portFile, encoding: .utf8)))
        return KubeTestServer(folder: folder, server: server, port: port)
    }

    /// The `Authorization` header of each request so far (`none` for a request without one).
    func authorizations() -> [String] {
        let log = (try? String(contentsOfFile: folder + "/requests.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init)
    }

    /// A kubeconfig with a cluster at this server and a context for `user` (none yet when `nil`), the current one:
    /// what a cluster's admin hands out, before the user's own entry.
    func clusterConfig(user: String?) -> String {
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: test
          cluster:
            server: https://127.0.0.1:\(port)
            certificate-authority: \(certificate)
        contexts:
        - name: test
          context:
            cluster: test
            namespace: default\(user.map { "\n    user: \($0)" } ?? "")
        current-context: test

        """
    }

    func stop() {
        server.terminate()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// kubectl's path, if it is installed (on `PATH`).
    static let kubectl: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        .map { "\($0)/kubectl" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}
