import NIOCore
import NIOHTTP1
import NIOPosix

/// One event loop's connections, by upstream: the idle ones, and how many exchanges are under way; used on that
/// loop only.
final class LoopPool {
    let loop: any EventLoop
    private var idle: [PlainHTTPEndpoint: [UpstreamConnection]] = [:]
    private var busy: [PlainHTTPEndpoint: Int] = [:]
    private(set) var isShutDown = false
    /// The most exchanges under way per upstream on this loop; past it, calls take the router's path, where
    /// AsyncHTTPClient queues them.
    let maxBusy: Int
    /// The most idle connections kept per upstream and loop.
    private let maxIdle = 256

    init(loop: any EventLoop, maxBusy: Int) {
        self.loop = loop
        self.maxBusy = maxBusy
    }

    /// Whether another exchange with `endpoint` may start on this loop now.
    func hasRoom(for endpoint: PlainHTTPEndpoint) -> Bool { busy[endpoint, default: 0] < maxBusy }

    /// Starts the exchange on an idle connection, or a new one; it counts as under way until its sink has heard
    /// how it ended.
    func begin(_ exchange: UpstreamExchange) {
        busy[exchange.endpoint, default: 0] += 1
        start(exchange, retry: true)
    }

    private func ended(_ endpoint: PlainHTTPEndpoint) { busy[endpoint, default: 1] -= 1 }

    /// Sends the exchange's request on an idle connection, or a new one.
    private func start(_ exchange: UpstreamExchange, retry: Bool) {
        while let connection = idle[exchange.endpoint]?.popLast() {
            if connection.isUsable {
                run(exchange, on: connection, retry: retry)
                return
            }
        }
        connect(exchange)
    }

    /// Whether a request of `method` may be sent again when its connection was lost before any answer.
    static func isIdempotent(_ method: HTTPMethod) -> Bool {
        switch method {
        case .GET, .HEAD, .OPTIONS, .TRACE, .PUT, .DELETE: true
        default: false
        }
    }

    func shutdown() {
        isShutDown = true
        for connection in idle.values.joined() { connection.close() }
        idle = [:]
    }

    private func connect(_ exchange: UpstreamExchange) {
        let connected = ClientBootstrap(group: loop)
            .connectTimeout(.seconds(10))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(UpstreamConnection())
                }
            }
            .connect(host: exchange.endpoint.host, port: exchange.endpoint.port)
        connected.assumeIsolated().whenComplete { result in
            guard case .success(let channel) = result,
                let connection = try? channel.pipeline.syncOperations.handler(type: UpstreamConnection.self)
            else {
                self.ended(exchange.endpoint)
                exchange.sink.upstreamFailed(.unavailable)
                return
            }
            self.run(exchange, on: connection, retry: false)
        }
    }

    private func run(_ exchange: UpstreamExchange, on connection: UpstreamConnection, retry: Bool) {
        connection.begin(exchange) { outcome in
            // A kept-alive connection the upstream closed as the request went out: once more, on a new one, for a
            // method that may be repeated (RFC 9110, 9.2.2); the upstream may have acted on a POST.
            let again = outcome == .lostBeforeAnswer && retry && Self.isIdempotent(exchange.head.method)
            if !again { self.ended(exchange.endpoint) }
            switch outcome {
            case .reusable:
                guard !self.isShutDown, self.idle[exchange.endpoint, default: []].count < self.maxIdle else {
                    connection.close()
                    return
                }
                self.idle[exchange.endpoint, default: []].append(connection)
                connection.idle(for: UpstreamPools.idleTimeout)
            case .closed:
                break
            case .lostBeforeAnswer where again:
                self.start(exchange, retry: false)
            case .lostBeforeAnswer:
                exchange.sink.upstreamFailed(.unavailable)
            }
        }
    }
}
