// The floor below the stack: a relay on SwiftNIO alone, with neither Hummingbird nor AsyncHTTPClient. Each inbound
// keep-alive connection gets one upstream connection on its own event loop; every part of a request is written
// upstream as it comes (the path's `/nio` cut off, `Host` set), and every part of the answer is written back the
// same way. No pool, no deadline, no limits, no error answers: what a forwarded request could cost at the least if
// the back end left both libraries for a channel pipeline of its own.
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves the relay on 127.0.0.1:`port`, forwarding `/nio/<path>` to `upstream` (host and port) as `/<path>`.
func runNIORelay(port: Int, upstream: SocketAddress, host: String) async throws {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                try channel.pipeline.syncOperations.addHandler(InboundRelay(upstream: upstream, host: host))
            }
        }
        .bind(host: "127.0.0.1", port: port).get()
    // Until the task is cancelled (the Hummingbird side has stopped on SIGTERM): then the listener closes.
    try await withTaskCancellationHandler {
        try await channel.closeFuture.get()
    } onCancel: {
        channel.close(promise: nil)
    }
}

/// The browser's side of one connection: requests in, answers out.
final class InboundRelay: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let upstreamAddress: SocketAddress
    let host: String
    /// The upstream connection once it is up; the parts written before that wait in `pending`.
    var upstream: (any Channel)?
    var pending: [HTTPClientRequestPart] = []
    var connecting = false

    init(upstream: SocketAddress, host: String) {
        self.upstreamAddress = upstream
        self.host = host
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            head.uri = head.uri.hasPrefix("/nio/") ? String(head.uri.dropFirst(4)) : head.uri
            head.headers.replaceOrAdd(name: "host", value: host)
            send(.head(head), context: context)
        case .body(let buffer):
            send(.body(.byteBuffer(buffer)), context: context)
        case .end(let trailers):
            send(.end(trailers), context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        upstream?.close(promise: nil)
        context.fireChannelInactive()
    }

    private func send(_ part: HTTPClientRequestPart, context: ChannelHandlerContext) {
        if let upstream {
            if case .end = part {
                upstream.writeAndFlush(part, promise: nil)
            } else {
                upstream.write(part, promise: nil)
            }
            return
        }
        pending.append(part)
        guard !connecting else { return }
        connecting = true
        let downstream = NIOLoopBound(context, eventLoop: context.eventLoop)
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(UpstreamRelay(downstream: downstream.value))
                }
            }
            .connect(to: upstreamAddress)
            .whenComplete { result in
                let relay = this.value
                switch result {
                case .success(let channel):
                    relay.upstream = channel
                    for part in relay.pending { channel.write(part, promise: nil) }
                    relay.pending = []
                    channel.flush()
                case .failure:
                    downstream.value.close(promise: nil)
                }
            }
    }
}

/// The upstream's side of one connection: answers in, passed to the browser's connection as they come.
final class UpstreamRelay: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    let downstream: ChannelHandlerContext

    init(downstream: ChannelHandlerContext) { self.downstream = downstream }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            downstream.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        case .body(let buffer):
            downstream.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
        case .end(let trailers):
            downstream.writeAndFlush(NIOAny(HTTPServerResponsePart.end(trailers)), promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        downstream.close(promise: nil)
        context.fireChannelInactive()
    }
}
