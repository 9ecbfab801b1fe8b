import NIOCore
import NIOHTTP1
import NIOPosix

/// Keep-alive HTTP/1.1 connections to plain-HTTP upstreams for the event-loop forwarding path, pooled per event
/// loop: an exchange runs on the loop of the browser's connection, so neither connection's I/O leaves that thread.
/// Idle connections close after ``idleTimeout``; ``shutdown()`` closes them all.
final class UpstreamPools: Sendable {
    private let pools: [ObjectIdentifier: NIOLoopBoundBox<LoopPool?>]
    /// How long an idle connection is kept, as AsyncHTTPClient's pool keeps its own.
    static let idleTimeout = TimeAmount.seconds(60)

    /// The most exchanges under way per upstream on one event loop (``LoopPool/maxBusy``).
    let maxBusy: Int

    init(group: MultiThreadedEventLoopGroup = .singleton, maxBusy: Int) {
        self.maxBusy = maxBusy
        var pools: [ObjectIdentifier: NIOLoopBoundBox<LoopPool?>] = [:]
        for loop in group.makeIterator() {
            pools[ObjectIdentifier(loop)] = .makeEmptyBox(valueType: LoopPool.self, eventLoop: loop)
        }
        self.pools = pools
    }

    /// The pool of `loop`, on `loop`; `nil` for a loop of another group (its requests go through AsyncHTTPClient).
    func pool(on loop: any EventLoop) -> LoopPool? {
        guard let box = pools[ObjectIdentifier(loop)] else { return nil }
        if let pool = box.value { return pool.isShutDown ? nil : pool }
        let pool = LoopPool(loop: loop, maxBusy: maxBusy)
        box.value = pool
        return pool
    }

    /// Closes every pooled connection and takes no more exchanges.
    func shutdown() async {
        var closed: [EventLoopFuture<Void>] = []
        for box in pools.values {
            let loop = box.eventLoop
            closed.append(
                loop.submit {
                    if box.value == nil { box.value = LoopPool(loop: loop, maxBusy: 0) }
                    box.value?.shutdown()
                })
        }
        for future in closed { try? await future.get() }
    }
}
