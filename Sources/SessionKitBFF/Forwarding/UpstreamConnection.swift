import NIOCore
import NIOHTTP1

/// The last handler of a pooled upstream connection: one exchange at a time, its answer passed to the exchange's
/// sink part by part, within the exchange's deadline, read timeout and size limit.
final class UpstreamConnection: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// How an exchange left the connection.
    enum Outcome {
        /// The answer ended and the connection may serve another exchange.
        case reusable
        /// The connection is closed; the sink has been told how the exchange ended.
        case closed
        /// A connection that had served an exchange before was lost before any of the answer: the sink has been
        /// told nothing, so that the request may go once more on a new connection.
        case lostBeforeAnswer
    }

    private var context: ChannelHandlerContext?
    private var served = 0
    private var closed = false
    private var current: Current?
    private var idleTimer: Scheduled<Void>?

    private struct Current {
        let exchange: UpstreamExchange
        let reused: Bool
        let done: (Outcome) -> Void
        var timer: Scheduled<Void>?
        var lastRead: NIODeadline
        var answered = false
        var received = 0
        var keepAlive: Bool
    }

    var isUsable: Bool { !closed && current == nil && context != nil }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Sends the exchange's (bodiless) request; `done` hears how the connection was left once the exchange ends.
    func begin(_ exchange: UpstreamExchange, done: @escaping (Outcome) -> Void) {
        idleTimer?.cancel()
        idleTimer = nil
        guard let context, !closed else {
            done(served > 0 ? .lostBeforeAnswer : .closed)
            if served == 0 { exchange.sink.upstreamFailed(.unavailable) }
            return
        }
        current = Current(
            exchange: exchange, reused: served > 0, done: done, lastRead: .now(), keepAlive: exchange.head.isKeepAlive)
        served += 1
        arm(context)
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Closes the connection once it has been idle for `timeout`, unless an exchange begins first.
    func idle(for timeout: TimeAmount) {
        guard let context else { return }
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { self.close() }
    }

    /// Stops reading the answer (the browser's connection cannot take more for now) or starts again.
    func setReading(_ reading: Bool) {
        try? context?.channel.syncOptions?.setOption(.autoRead, value: reading)
        if reading { context?.read() }
    }

    /// Ends the exchange without telling its sink (the browser has gone) and closes the connection.
    func cancel() {
        guard let ending = current else { return }
        current = nil
        ending.timer?.cancel()
        close()
        ending.done(.closed)
    }

    func close() {
        closed = true
        context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard current != nil else { return }
        current!.lastRead = .now()
        switch unwrapInboundIn(data) {
        case .head(let head):
            let limit = current!.exchange.limit
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limit {
                fail(.tooLarge)
                return
            }
            current!.answered = true
            current!.keepAlive = current!.keepAlive && head.isKeepAlive
            current!.exchange.sink.upstreamHead(head, connection: self)
        case .body(let chunk):
            current!.received += chunk.readableBytes
            guard current!.received <= current!.exchange.limit else {
                fail(.tooLarge)
                return
            }
            current!.exchange.sink.upstreamBody(chunk)
        case .end:
            guard let ending = current, ending.answered else {
                fail(.cutShort)
                return
            }
            current = nil
            ending.timer?.cancel()
            if !ending.keepAlive { close() }
            ending.done(ending.keepAlive && !closed ? .reusable : .closed)
            ending.exchange.sink.upstreamEnd()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        lost()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        lost()
        close()
    }

    /// The connection went away during an exchange.
    private func lost() {
        guard let ending = current else { return }
        guard ending.reused, !ending.answered else {
            fail(ending.answered ? .cutShort : .unavailable)
            return
        }
        current = nil
        ending.timer?.cancel()
        ending.done(.lostBeforeAnswer)
    }

    private func fail(_ failure: UpstreamFailure) {
        guard let ending = current else { return }
        current = nil
        ending.timer?.cancel()
        close()
        ending.done(.closed)
        ending.exchange.sink.upstreamFailed(failure)
    }

    /// The exchange's timer, at its deadline or when the upstream has been silent for the read timeout, whichever
    /// is first; a read since it was set moves it on rather than being set again on every read.
    private func arm(_ context: ChannelHandlerContext) {
        guard let exchange = current?.exchange, let lastRead = current?.lastRead else { return }
        let due = min(exchange.deadline, lastRead + exchange.readTimeout)
        current?.timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
            guard let current = self.current else { return }
            let now = NIODeadline.now()
            if now >= current.exchange.deadline || now >= current.lastRead + current.exchange.readTimeout {
                self.fail(.timedOut)
            } else if let context = self.context {
                self.arm(context)
            }
        }
    }
}
