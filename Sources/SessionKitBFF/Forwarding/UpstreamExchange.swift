import NIOCore
import NIOHTTP1

/// One exchange: the request, its limits, and where its answer goes.
struct UpstreamExchange {
    let head: HTTPRequestHead
    let endpoint: PlainHTTPEndpoint
    let deadline: NIODeadline
    let readTimeout: TimeAmount
    let limit: Int
    let sink: any UpstreamAnswerSink
}

/// What receives an upstream answer part by part, on the exchange's event loop. Exactly one of
/// ``upstreamEnd()`` and ``upstreamFailed(_:)`` ends every exchange.
protocol UpstreamAnswerSink: AnyObject {
    func upstreamHead(_ head: HTTPResponseHead, connection: UpstreamConnection)
    func upstreamBody(_ chunk: ByteBuffer)
    func upstreamEnd()
    func upstreamFailed(_ error: UpstreamFailure)
}
