import AuthEmulator
import CoreMetrics
import Foundation
import Hummingbird
import Logging
import SecureStore
import SessionKit
import SessionKitBFF
import SessionKitPostgres
import SessionKitServer
import SessionKitTestSupport
import SessionKitTesting

/// One server instance of the back end for front ends under test, in this process or as a process of its own.
protocol BFFInstance: Sendable {
    /// Where the test reaches this instance (`http://127.0.0.1:PORT`).
    var url: URL { get }
    func stop() async
}

extension BFFInstance {
    /// `url` joined with `path` (which starts with `/`).
    func at(_ path: String) -> URL { URL(string: url.absoluteString + path)! }
}

/// An instance in this process: a Hummingbird application on a loopback port, with the example's routes.
final class InProcessInstance: BFFInstance {
    let url: URL
    let bff: BackendForFrontend
    private let server: Task<Void, any Error>

    private init(url: URL, bff: BackendForFrontend, server: Task<Void, any Error>) {
        self.url = url
        self.bff = bff
        self.server = server
    }

    /// Starts an instance for `deployment`, signing in at `emulator` as `clientID`, and waits until it answers.
    static func start(
        emulator: AuthEmulator, store: any AsyncSecureStore, publicURL: URL? = nil, upstream: URL? = nil,
        clientID: String = AuthEmulator.Client.confidentialID,
        clientSecret: String = AuthEmulator.Client.confidentialSecret,
        metrics: (any MetricsFactory)? = nil,
        dpop: DPoPKey? = nil,
        pushedAuthorization: PushedAuthorization = .whenRequired,
        logger backendLogger: Logger? = nil,
        routed: RoutedRequests? = nil,
        configure: (inout BackendForFrontend.Configuration) -> Void = { _ in }
    ) async throws -> InProcessInstance {
        let port = try await LoopbackPort.unused()
        let url = URL(string: "http://127.0.0.1:\(port)")!
        var providerConfiguration = try emulator.providerConfiguration(clientID: clientID, clientSecret: clientSecret)
        providerConfiguration.dpop = dpop
        providerConfiguration.pushedAuthorization = pushedAuthorization
        let provider = ProviderClient(configuration: providerConfiguration)
        let sessions = SessionDirectory(provider: provider, store: store)
        var configuration = try BackendForFrontend.Configuration(
            publicURL: publicURL ?? url, upstream: upstream ?? emulator.issuer)
        configure(&configuration)
        let bff = try BackendForFrontend(
            configuration: configuration, sessions: sessions, cookieSecret: SealedCookies.inProcessSecret,
            logger: backendLogger, metrics: metrics)
        let router = Router(context: BasicBFFRequestContext.self)
        if let routed { router.add(middleware: routed) }
        router.add(middleware: bff.sessionMiddleware())
        bff.addRoutes(to: router)
        router.get("hello") { _, context -> String in
            guard let claims = try await context.session?.idTokenClaims() else { return "not signed in" }
            return "Hello, \(claims.name ?? "?")"
        }
        var logger = Logger(label: "bff-test")
        logger.logLevel = .critical
        // The back end's services (the change follower, the upstream client) run beside the server, as in the
        // example; the store runs on its own for the whole test.
        let app = Application(
            router: router, server: bff.httpServer, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            services: bff.services(), logger: logger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        let instance = InProcessInstance(url: url, bff: bff, server: server)
        try await waitUntilAnswering(instance)
        return instance
    }

    func stop() async {
        server.cancel()
        _ = await server.result
    }
}

/// An instance as a process of its own: the example program `sessionkit-bff`.
final class ProcessInstance: BFFInstance {
    let url: URL
    private let process: Process

    private init(url: URL, process: Process) {
        self.url = url
        self.process = process
    }

    /// Starts `sessionkit-bff` for `deployment` against `emulator`, and waits until it answers.
    static func start(
        emulator: AuthEmulator, deployment: BFFPostgres.Deployment, keyFile: URL, publicURL: URL? = nil,
        extraArguments: [String] = []
    ) async throws -> ProcessInstance {
        guard let database = BFFPostgres.url else { throw BFFPostgres.Missing() }
        let secret = try secretFile(beside: keyFile).path
        return try await launch { url in
            [
                "--public-url", (publicURL ?? url).absoluteString, "--issuer", emulator.issuer.absoluteString,
                "--database-url", database, "--sealing-key-file", keyFile.path, "--service", deployment.service,
                "--client-secret-file", secret,
            ] + extraArguments
        }
    }

    /// Starts `sessionkit-bff --store memory` against `emulator` (no database), with the sealing key in `keyFile` and
    /// `extraArguments` after the others.
    /// `prefix` runs before the program, as `taskset -c 0` does.
    static func startInMemory(
        emulator: AuthEmulator, keyFile: URL, extraArguments: [String] = [], prefix: [String] = []
    ) async throws -> ProcessInstance {
        try await launch(prefix: prefix) { _ in
            ["--issuer", emulator.issuer.absoluteString, "--store", "memory", "--sealing-key-file", keyFile.path]
                + extraArguments
        }
    }

    /// Runs `sessionkit-bff --port PORT` on a free loopback port with the arguments `arguments` gives for its URL,
    /// and waits until it answers; a `prefix` (a program and its arguments) runs it, and must `exec` it.
    private static func launch(prefix: [String] = [], _ arguments: (URL) throws -> [String]) async throws
        -> ProcessInstance
    {
        let port = try await LoopbackPort.unused()
        let url = URL(string: "http://127.0.0.1:\(port)")!
        let process = Process()
        let program = try BuiltProgram.path("sessionkit-bff")
        let command = prefix + [program, "--port", "\(port)"] + (try arguments(url))
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.standardError
        try process.run()
        let instance = ProcessInstance(url: url, process: process)
        do {
            try await waitUntilAnswering(instance)
        } catch {
            await instance.stop()
            throw error
        }
        return instance
    }

    /// Writes the deployment's sealing key where `sessionkit-bff` reads it (mode 0600).
    static func keyFile(for deployment: BFFPostgres.Deployment, in folder: TemporaryFolder) throws -> URL {
        let file = folder.url.appendingPathComponent("sealing-key")
        guard
            FileManager.default.createFile(
                atPath: file.path, contents: Data(deployment.keyHex.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CookieBrowser.Failure("cannot write \(file.path)") }
        return file
    }

    /// The emulator's confidential client secret in a 0600 file next to `keyFile`.
    static func secretFile(beside keyFile: URL) throws -> URL {
        let file = keyFile.deletingLastPathComponent().appendingPathComponent("client-secret")
        guard
            FileManager.default.createFile(
                atPath: file.path, contents: Data(AuthEmulator.Client.confidentialSecret.utf8),
                attributes: [.posixPermissions: 0o600])
        else { throw CookieBrowser.Failure("cannot write \(file.path)") }
        return file
    }

    /// The process id (the program's own, since a prefix execs it).
    var processIdentifier: Int32 { process.processIdentifier }

    /// Whether the process is still alive (a crash ends it).
    var isRunning: Bool { process.isRunning }

    /// Sends SIGTERM, as an orchestrator does before it stops a container, and waits up to `limit` for the
    /// process to end; returns its exit status, or `nil` when it did not end (it is then killed).
    func terminate(within limit: Duration) async -> Int32? {
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + limit
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }

    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Waits until `instance` answers `GET /auth/me` (401 without a session), for up to 30 s.
func waitUntilAnswering(_ instance: some BFFInstance) async throws {
    let browser = CookieBrowser()
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if let page = try? await browser.get(instance.at("/auth/me")), page.status == 401 {
            await browser.shutdown()
            return
        }
        try? await Task.sleep(for: .milliseconds(50))
    }
    await browser.shutdown()
    throw CookieBrowser.Failure("the instance at \(instance.url) did not answer within 30 s")
}
