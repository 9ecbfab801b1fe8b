import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 child channel with a ``ForwardingChannelHandler`` in each connection's pipeline, right
/// after the connection state handler, which so sees every request and answer (keep-alive, idle timeout, graceful
/// shutdown) whichever path answers it.
struct ForwardingHTTP1Channel: ServerChildChannel {
    let base: HTTP1Channel
    let forwarding: EventLoopForwarding

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        let forwarding = forwarding
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(ForwardingChannelHandler(forwarding: forwarding), position: .after(state))
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
