import NIOCore
import SessionKit

/// Refuses a connection that sends more than `limit` bytes (a long URL, large headers, any body) with 431.
final class RequestSizeLimitHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limit: Int
    private var received = 0
    private var refused = false

    init(limit: Int) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        received += unwrapInboundIn(data).readableBytes
        guard received > limit else {
            context.fireChannelRead(data)
            return
        }
        refused = true
        let page = LoopbackPage.tooLarge
        let html = page.html
        var text = "HTTP/1.1 431 Request Header Fields Too Large\r\n"
        for (name, value) in LoopbackPage.commonHeaders { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(html.utf8.count)\r\n\r\n\(html)"
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text))).whenComplete { _ in
            bound.value.close(promise: nil)
        }
    }
}
