import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A back-channel logout receiver (or CIBA ping endpoint) on a free loopback port: a Hummingbird app that records every
/// `POST` it gets (path, content type, `logout_token`, authorization, body) and answers as told, so tests see what the
/// emulator delivers.
final class LogoutReceiver: Sendable {
    /// How the receiver answers.
    enum Behaviour: Sendable {
        /// 200, as a receiver that logged the user out.
        case ok
        /// This status, with no body.
        case status(Int)
        /// Nothing for this many seconds, then 200: a receiver that hangs.
        case stall(seconds: Double)
    }

    /// One request the receiver got.
    struct Received: Sendable {
        var path: String
        var contentType: String?
        var logoutToken: String?
        /// The `Authorization` header (a CIBA ping's bearer token).
        var authorization: String?
        /// The body as text (a CIBA ping's JSON).
        var body: String
    }

    /// The requests received, shared with the route that records them.
    private final class Log: Sendable {
        let entries = Mutex<[Received]>([])
    }

    /// The receiver's base URL, `http://127.0.0.1:PORT/`.
    let url: URL
    private let log: Log
    private let server: Task<Void, any Error>

    private init(url: URL, log: Log, server: Task<Void, any Error>) {
        self.url = url
        self.log = log
        self.server = server
    }

    /// What the receiver got so far, in arrival order.
    var received: [Received] { log.entries.withLock { $0 } }

    /// Runs `body` with a receiver that answers every request as `behaviour` says; stops it afterwards.
    static func with(_ behaviour: Behaviour = .ok, _ body: (LogoutReceiver) async throws -> Void) async throws {
        let receiver = try await start(behaviour)
        do {
            try await body(receiver)
        } catch {
            await receiver.stop()
            throw error
        }
        await receiver.stop()
    }

    private static func start(_ behaviour: Behaviour) async throws -> LogoutReceiver {
        let log = Log()
        let router = Router()
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            let text = String(decoding: Data(body.readableBytesView), as: UTF8.self)
            let form = Harness.formValues(text)
            let entry = Received(
                path: request.uri.path, contentType: request.headers[.contentType], logoutToken: form["logout_token"],
                authorization: request.headers[.authorization], body: text)
            log.entries.withLock { $0.append(entry) }
            switch behaviour {
            case .ok:
                return Response(status: .ok)
            case .status(let code):
                return Response(status: .init(code: code))
            case .stall(let seconds):
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                return Response(status: .ok)
            }
        }
        // `**` matches one path component or more, so the root has a route of its own.
        router.post("/", use: handler)
        router.post("**", use: handler)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "logout-receiver")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger
        )
        let server = Task {
            defer { continuation.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0, let url = URL(string: "http://127.0.0.1:\(port)/") else {
            server.cancel()
            throw CancellationError()
        }
        return LogoutReceiver(url: url, log: log, server: server)
    }

    private func stop() async {
        server.cancel()
        _ = await server.result
    }
}
