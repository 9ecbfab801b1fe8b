import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// In each browser connection's pipeline, between Hummingbird's connection state handler and its router: answers
/// the forwarded requests ``EventLoopForwarding`` plans from the event loop, and passes every other request on.
///
/// Answers leave in the order the requests came: a request is planned only when the router has no request of
/// the connection unanswered, and requests that arrive while one is forwarded here wait (and reading waits with
/// them) until its answer has ended.
final class ForwardingChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let forwarding: EventLoopForwarding
    private var context: ChannelHandlerContext?
    /// Requests passed on to the router whose answers have not ended.
    private var unanswered = 0
    /// The request forwarded from here, while its request or its answer has not ended.
    private var current: Current?
    /// The parts of requests that came while ``current`` was forwarded.
    private var waiting: [HTTPRequestPart] = []
    /// Whether a read was held back while requests wait.
    private var readHeld = false
    /// Whether the connection closes after the answer being written: what comes after is not read.
    private var closing = false

    private struct Current {
        let plan: ForwardingPlan
        /// The request said `Connection: close`: the connection closes once the answer is out, as the router's
        /// side closes it.
        let closeAfter: Bool
        var requestEnded = false
        var answerEnded = false
        var status = 0
        var upstream: UpstreamConnection?
        /// A small answer of announced length, collected whole before it goes out (head and body in one write, and
        /// a failure before its end still a clean 502 or 504), as on the router's path.
        var held: (head: HTTPResponse, body: ByteBuffer)?
        /// Whether the answer's head has gone to the browser.
        var headSent = false
    }

    init(forwarding: EventLoopForwarding) { self.forwarding = forwarding }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receive(unwrapInboundIn(data), context: context)
    }

    private func receive(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        guard !closing else { return }
        if current != nil {
            if !current!.requestEnded, case .end = part {
                current!.requestEnded = true
                finishIfDone(context)
            } else {
                waiting.append(part)
            }
            return
        }
        if case .head(let request) = part, unanswered == 0,
            let plan = forwarding.plan(request, on: context.eventLoop)
        {
            let close = request.headerFields[.connection].map { $0.lowercased().contains("close") } ?? false
            current = Current(plan: plan, closeAfter: close)
            plan.pool.begin(plan.exchange(self))
            return
        }
        if case .head = part { unanswered += 1 }
        context.fireChannelRead(wrapInboundOut(part))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered -= 1 }
        context.write(data, promise: promise)
    }

    func read(context: ChannelHandlerContext) {
        guard current == nil || waiting.isEmpty else {
            readHeld = true
            return
        }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { current?.upstream?.setReading(true) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let ending = current {
            current = nil
            ending.upstream?.cancel()
            forwarding.finished(ending.plan, status: ending.status == 0 ? 499 : ending.status)
        }
        waiting = []
        context.fireChannelInactive()
    }

    /// Once the forwarded request and its answer have both ended: counts it, then takes the requests that waited.
    private func finishIfDone(_ context: ChannelHandlerContext) {
        guard let ending = current, ending.requestEnded, ending.answerEnded else { return }
        current = nil
        forwarding.finished(ending.plan, status: ending.status)
        let parts = waiting
        waiting = []
        for part in parts { receive(part, context: context) }
        // The router's side takes what it was given at the end of a read: end one for the parts just passed on.
        if !parts.isEmpty { context.fireChannelReadComplete() }
        if readHeld, current == nil || waiting.isEmpty {
            readHeld = false
            context.read()
        }
    }
}

extension ForwardingChannelHandler: UpstreamAnswerSink {
    func upstreamHead(_ head: HTTPResponseHead, connection: UpstreamConnection) {
        guard let context, current != nil else {
            connection.cancel()
            return
        }
        current!.upstream = connection
        current!.status = Int(head.status.code)
        var fields = HopByHopHeaders.downstream(head.headers)
        // The framing is this server's to set, as the router's path sets it: the announced length, else chunks.
        let announced = head.headers.first(name: "content-length").flatMap(Int.init)
        if let announced { fields[.contentLength] = String(announced) }
        if let setCookie = current!.plan.setCookie { fields.append(HTTPField(name: .setCookie, value: setCookie)) }
        let response = HTTPResponse(status: .init(code: Int(head.status.code)), headerFields: fields)
        if let announced, announced <= BackendForFrontend.wholeAnswerLimit {
            current!.held = (response, context.channel.allocator.buffer(capacity: announced))
            return
        }
        current!.headSent = true
        context.write(wrapOutboundOut(.head(response)), promise: nil)
    }

    func upstreamBody(_ chunk: ByteBuffer) {
        guard let context, current != nil else { return }
        if current!.held != nil {
            var chunk = chunk
            current!.held!.body.writeBuffer(&chunk)
            return
        }
        context.write(wrapOutboundOut(.body(chunk)), promise: nil)
        // A browser that reads slower than the upstream sends: stop reading the upstream until it catches up. The
        // flush may drain the buffer at once (and announce it writable again): pause only if it did not.
        if !context.channel.isWritable {
            context.flush()
            if !context.channel.isWritable { current?.upstream?.setReading(false) }
        }
    }

    func upstreamEnd() {
        guard let context, current != nil else { return }
        current!.answerEnded = true
        if let (head, body) = current!.held {
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        }
        endAnswer(context)
        finishIfDone(context)
    }

    func upstreamFailed(_ failure: UpstreamFailure) {
        guard let context, current != nil else { return }
        guard !current!.headSent else {
            // The head is out: the browser sees the answer end early, as on the router's path.
            let ending = current!
            current = nil
            forwarding.finished(ending.plan, status: ending.status)
            context.close(promise: nil)
            return
        }
        let (head, body) = Answers.errorParts(failure)
        current!.status = Int(head.status.code)
        current!.answerEnded = true
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        endAnswer(context)
        finishIfDone(context)
    }

    /// Writes the answer's end, and closes the connection once it is out when the request asked for that.
    private func endAnswer(_ context: ChannelHandlerContext) {
        guard current?.closeAfter == true else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        closing = true
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
