import AuthEmulator
import Foundation
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// `scripts/proxy-test-server.py` in front of an emulator that calls itself `https://idp.test/`: an HTTP proxy that
/// answers `CONNECT idp.test:443` with a certificate from a private authority of its own (`ca.pem`) and relays to the
/// emulator. `idp.test` resolves nowhere, so a request that reaches the provider went through the proxy.
struct ProxyTestServer {
    /// The made-up host name the provider is reached by.
    static let host = "idp.test"

    let folder: String
    let server: SpawnedProcess
    let port: Int
    let emulator: AuthEmulator

    /// The private authority's certificate (PEM).
    var authority: String { folder + "/ca.pem" }
    /// The proxy's URL, with `credentials` (`USER:PASSWORD`) when given.
    func url(credentials: String? = nil) -> String {
        "http://\(credentials.map { $0 + "@" } ?? "")127.0.0.1:\(port)"
    }

    /// Starts the emulator and the proxy; with `user` and `password` the proxy asks for them.
    static func start(user: String? = nil, password: String? = nil) async throws -> ProxyTestServer {
        let emulator = try await LiveEmulator.start(
            LiveEmulator.configuration { $0.publicIssuer = "https://\(host)/" })
        do {
            let folder = try TemporaryFolder(prefix: "sessionkit-proxy").path
            let portFile = folder + "/port"
            var arguments = [
                FileManager.default.currentDirectoryPath + "/scripts/proxy-test-server.py", "--port-file", portFile,
                "--log", folder + "/requests.log", "--folder", folder, "--host", host, "--backend",
                "\(emulator.port)",
            ]
            if let user { arguments += ["--user", user, "--password", password ?? ""] }
            let server = try SpawnedProcess(
                path: "/usr/bin/python3", arguments: arguments, environment: ProcessInfo.processInfo.environment)
            let started = ContinuousClock.now
            while !FileManager.default.fileExists(atPath: portFile) {
                guard server.isRunning, ContinuousClock.now - started < .seconds(30) else {
                    throw TestFailure("the proxy test server did not start")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            let port = try #require(Int(try String(contentsOfFile: portFile, encoding: .utf8)))
            return ProxyTestServer(folder: folder, server: server, port: port, emulator: emulator)
        } catch {
            await emulator.stop()
            throw error
        }
    }

    /// Runs `body` with a fresh proxy and emulator, stopped afterwards.
    static func with(
        user: String? = nil, password: String? = nil, _ body: (ProxyTestServer) async throws -> Void
    ) async throws {
        let proxy = try await start(user: user, password: password)
        do {
            try await body(proxy)
            await proxy.stop()
        } catch {
            await proxy.stop()
            throw error
        }
    }

    /// The proxy's log so far: one line per request ("CONNECT idp.test:443", "407 CONNECT idp.test:443").
    func requests() -> [String] {
        let log = (try? String(contentsOfFile: folder + "/requests.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init)
    }

    /// The environment that sends https through this proxy, lower-case names emptied so the test's own win.
    func environment(credentials: String? = nil, noProxy: String = "") -> [String: String] {
        [
            "HTTPS_PROXY": url(credentials: credentials), "https_proxy": "", "HTTP_PROXY": "", "http_proxy": "",
            "NO_PROXY": noProxy, "no_proxy": "", "SSL_CERT_FILE": "",
        ]
    }

    func stop() async {
        server.terminate()
        await emulator.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
