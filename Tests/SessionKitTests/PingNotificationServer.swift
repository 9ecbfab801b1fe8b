import Foundation
import Hummingbird
import Logging
import SessionKit
import Synchronization

/// An app's own server as a test stands it up: a Hummingbird app on a free loopback port that hands every
/// `POST /ciba/notify` to a ``BackchannelPingReceiver`` and answers with the status it returns, keeping those
/// statuses so a test sees what the provider was told.
final class PingNotificationServer: Sendable {
    /// The notification endpoint, `http://127.0.0.1:PORT/ciba/notify`.
    let endpoint: URL
    /// The receiver the route hands the requests to.
    let receiver: BackchannelPingReceiver
    private let log: PingLog
    private let server: Task<Void, any Error>

    private init(endpoint: URL, receiver: BackchannelPingReceiver, log: PingLog, server: Task<Void, any Error>) {
        self.endpoint = endpoint
        self.receiver = receiver
        self.log = log
        self.server = server
    }

    /// The statuses answered so far, in order.
    var answered: [Int] { log.statuses.withLock { $0 } }

    /// Runs `body` with a server started for it, and stops the server afterwards.
    static func with<T: Sendable>(_ body: (PingNotificationServer) async throws -> T) async throws -> T {
        let server = try await start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    private static func start() async throws -> PingNotificationServer {
        let receiver = BackchannelPingReceiver()
        let log = PingLog()
        let router = Router()
        router.post("ciba/notify") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 16 * 1024)
            let status = receiver.receive(
                authorization: request.headers[.authorization], body: body.readableBytesView)
            log.append(status)
            var headers = HTTPFields()
            if status == 401 { headers[.wwwAuthenticate] = "Bearer" }
            return Response(status: .init(code: status), headers: headers)
        }
        var logger = Logger(label: "ping-notification-server")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let server = Task {
            defer { continuation.finish() }
            try await app.runService(gracefulShutdownSignals: [])
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0,
            let endpoint = URL(string: "http://127.0.0.1:\(port)/ciba/notify")
        else {
            server.cancel()
            throw CancellationError()
        }
        return PingNotificationServer(endpoint: endpoint, receiver: receiver, log: log, server: server)
    }

    private func stop() async {
        server.cancel()
        _ = await server.result
    }

    /// Posts a ping to the endpoint as a provider would, or as an attacker might.
    func post(authorization: String?, body: String) async throws -> Int {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if let authorization { headers.append(("Authorization", authorization)) }
        let request = SessionKit.HTTPRequest(method: "POST", url: endpoint, headers: headers, body: Data(body.utf8))
        return try await AsyncHTTPClientTransport().send(request, timeout: .seconds(5)).status
    }
}

/// The statuses the route answered, shared with it.
private final class PingLog: Sendable {
    let statuses = Mutex<[Int]>([])
    func append(_ status: Int) { statuses.withLock { $0.append(status) } }
}
