import AuthEmulator
import Foundation
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// `scripts/proxy-test-server.py` in front of a loopback server under a made-up https name: by default an emulator
/// that calls itself `https://idp.test/`. The proxy answers `CONNECT idp.test:443` with a certificate from a private
/// authority of its own (`ca.pem`) and relays to the server. The name resolves nowhere, so a request that reaches
/// the server went through the proxy.
struct ProxyTestServer {
    /// The made-up host name the provider is reached by.
    static let host = "idp.test"

    let folder: String
    let server: SpawnedProcess
    let port: Int
    /// The emulator behind the proxy, when it was started for one.
    let emulator: AuthEmulator?

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
            return try await start(
                host: host, backend: emulator.port, emulator: emulator, user: user, password: password)
        } catch {
            await emulator.stop()
            throw error
        }
    }

    /// Starts the proxy for `https://<host>/`, relaying to the loopback port `backend`.
    static func start(
        host: String, backend: Int, emulator: AuthEmulator? = nil, user: String? = nil, password: String? = nil
    ) async throws -> ProxyTestServer {
        let folder = try TemporaryFolder(prefix: "sessionkit-proxy").path
        let portFile = folder + "/port"
        var arguments = [
            FileManager.default.currentDirectoryPath + "/scripts/proxy-test-server.py", "--port-file", portFile,
            "--log", folder + "/requests.log", "--folder", folder, "--host", host, "--backend", "\(backend)",
        ]
        if let user { arguments += ["--user", user, "--password", password ?? ""] }
        let server = try SpawnedProcess(
            path: "/usr/bin/python3", arguments: arguments, environment: ProcessInfo.processInfo.environment)
        let started = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: portFile) {
            guard server.isRunning, ContinuousClock.now - started < .seconds(30) else {
                server.terminate()
                throw TestFailure("the proxy test server did not start")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let port = try #require(Int(try String(contentsOfFile: portFile, encoding: .utf8)))
        return ProxyTestServer(folder: folder, server: server, port: port, emulator: emulator)
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

    /// The environment that sends https through this proxy, in both spellings (curl, and so git, reads the lower-case
    /// one first, even empty), with nothing else proxied or trusted from the test's own environment.
    func environment(credentials: String? = nil, noProxy: String = "") -> [String: String] {
        let proxy = url(credentials: credentials)
        return [
            "HTTPS_PROXY": proxy, "https_proxy": proxy, "HTTP_PROXY": "", "http_proxy": "", "NO_PROXY": noProxy,
            "no_proxy": noProxy, "SSL_CERT_FILE": "",
        ]
    }

    func stop() async {
        server.terminate()
        await emulator?.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
