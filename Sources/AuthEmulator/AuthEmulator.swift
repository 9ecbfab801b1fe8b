public import Foundation
import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore

/// A local, Auth0-compatible OpenID Connect identity provider on loopback, for tests and demos.
///
/// ```swift
/// var configuration = AuthEmulator.Configuration()
/// configuration.autoSignInUser = AuthEmulator.User.aliceEmail
/// configuration.testControlsEnabled = true
/// let emulator = try await AuthEmulator.start(configuration: configuration)
/// print(emulator.issuer)            // http://127.0.0.1:PORT/
/// try await emulator.controls.advanceClock(by: 3600)
/// await emulator.stop()
/// ```
public final class AuthEmulator: Sendable {
    /// The issuer URL, with the trailing slash Auth0 uses, e.g. `http://127.0.0.1:51234/` (or the configuration's
    /// `publicIssuer`).
    public let issuer: URL
    /// The configuration the emulator runs with.
    public let configuration: Configuration
    /// Test controls: clock, faults, key rotation, device approval, request counts.
    /// Every call throws ``AuthEmulatorError/Code/controlsDisabled`` unless `testControlsEnabled` is on.
    public let controls: Controls
    let core: EmulatorCore
    private let server: Server<HTTP1Channel>
    private let runTask: Task<Void, Never>

    private init(
        issuer: URL,
        core: EmulatorCore,
        server: Server<HTTP1Channel>,
        runTask: Task<Void, Never>
    ) {
        self.issuer = issuer
        self.configuration = core.configuration
        self.core = core
        self.controls = Controls(core: core)
        self.server = server
        self.runTask = runTask
    }

    /// The port the emulator listens on.
    public var port: Int { core.port }

    /// The OpenID Connect discovery document's URL, `<issuer>.well-known/openid-configuration`.
    public var discoveryURL: URL { issuer.appendingPathComponent(".well-known/openid-configuration") }

    /// Starts an emulator and returns once it is listening.
    ///
    /// - Parameters:
    ///   - configuration: What to run; the default is loopback on a free port with the seeded clients and users.
    ///   - logger: Where to log. Nothing secret is logged; per-request lines are at debug level.
    /// - Throws: ``AuthEmulatorError`` when the configuration or state file is invalid or the port is taken.
    public static func start(
        configuration: Configuration = .init(),
        logger: Logger = Logger(label: "AuthEmulator")
    ) async throws -> AuthEmulator {
        try configuration.validate()
        let snapshot = try configuration.stateFile.flatMap { try StateSnapshot.load(from: $0) }
        let clock = EmulatorClock(offset: snapshot?.clockOffset ?? 0)
        let keys = try await SigningKeys(
            algorithm: configuration.signingAlgorithm,
            overlap: configuration.keyRotationOverlap,
            saved: snapshot?.keys ?? [],
            now: clock.now
        )
        let state = EmulatorState(
            users: configuration.users,
            snapshot: snapshot,
            stateFile: configuration.stateFile,
            clock: clock,
            logger: logger
        )
        await state.setKeys(await keys.all)
        let faults = FaultInjector()
        let slot = ResponderSlot()
        let (started, startedContinuation) = AsyncStream.makeStream(of: Result<EmulatorCore, any Error>.self)

        let channel = HTTP1Channel(responder: { request, writer, channel in
            guard let responder = slot.responder else {
                try await channel.close()
                return
            }
            try await responder.respond(request, writer: writer, channel: channel)
        })
        let server = Server(
            childChannelSetup: channel,
            configuration: ServerConfiguration(
                address: .hostname(configuration.host, port: configuration.port ?? 0),
                serverName: "AuthEmulator"
            ),
            onServerRunning: { serverChannel in
                let port = serverChannel.localAddress?.port ?? configuration.port ?? 0
                let core = EmulatorCore(
                    configuration: configuration,
                    issuer: configuration.publicIssuer.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
                        ?? Self.issuerString(host: configuration.host, port: port),
                    port: port,
                    clock: clock,
                    state: state,
                    keys: keys,
                    faults: faults,
                    logger: logger
                )
                slot.responder = FaultingResponder(core: core, router: EmulatorRouter.build(core: core))
                startedContinuation.yield(.success(core))
            },
            eventLoopGroup: EventLoopGroupProvider.singleton.eventLoopGroup,
            logger: logger
        )
        let runTask = Task {
            do {
                try await server.run()
            } catch {
                startedContinuation.yield(.failure(error))
            }
            startedContinuation.finish()
        }
        var iterator = started.makeAsyncIterator()
        switch await iterator.next() {
        case .success(let core)?:
            guard let issuer = URL(string: core.issuer) else {
                throw AuthEmulatorError(
                    code: .invalidConfiguration, message: "The host \(configuration.host) makes no valid URL")
            }
            logger.debug("AuthEmulator listening", metadata: ["issuer": "\(core.issuer)"])
            return AuthEmulator(issuer: issuer, core: core, server: server, runTask: runTask)
        case .failure(let error)?:
            throw AuthEmulatorError(
                code: .bindFailed,
                message:
                    "Cannot listen on \(configuration.host):\(configuration.port ?? 0); pick another port",
                underlyingError: error
            )
        case nil:
            throw AuthEmulatorError(code: .bindFailed, message: "The server stopped before it started listening")
        }
    }

    /// Stops listening, closes connections and saves the state file when one is configured.
    public func stop() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await self.server.shutdownGracefully() }
            group.addTask { try? await Task.sleep(for: .seconds(3)) }
            await group.next()
            group.cancelAll()
        }
        runTask.cancel()
        await runTask.value
        await core.state.persist()
    }

    /// Waits until the server has stopped, by ``stop()`` or a failure; for a command-line host that serves
    /// until it is told to stop.
    public func waitUntilStopped() async {
        await runTask.value
    }

    static func issuerString(host: String, port: Int) -> String {
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "http://\(hostPart):\(port)/"
    }
}
