import NIOCore
import NIOHTTP1
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Answers one request per connection: the start link with a redirect, the callback with a page (held
/// until the sign-in's outcome is known when its `state` matches), anything else with 404.
final class LoopbackHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let route: LoopbackRoute
    private var answered = false
    private var holding = false

    init(route: LoopbackRoute) {
        self.route = route
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data), !answered else { return }
        answered = true
        switch route.answer(head, eventLoop: context.eventLoop) {
        case .page(let page):
            Self.write(page, version: head.version, context: NIOLoopBound(context, eventLoop: context.eventLoop))
        case .hold(let pending, let written):
            holding = true
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let version = head.version
            pending.futureResult.whenSuccess { page in
                Self.write(page, version: version, context: bound).cascade(to: written)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // An idle connection is closed; one that holds the real redirect's answer is not.
        if event is IdleStateHandler.IdleStateEvent, !holding {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    @discardableResult
    private static func write(
        _ page: LoopbackPage, version: HTTPVersion, context bound: NIOLoopBound<ChannelHandlerContext>
    ) -> EventLoopFuture<Void> {
        let context = bound.value
        let body = ByteBuffer(string: page.html)
        context.write(
            NIOAny(HTTPServerResponsePart.head(page.head(version: version, length: body.readableBytes))), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        let done = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
        done.whenComplete { _ in bound.value.close(promise: nil) }
        return done
    }
}
