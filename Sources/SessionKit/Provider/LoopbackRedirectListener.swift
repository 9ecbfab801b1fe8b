public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Receives the authorization response of a browser sign-in on the loopback interface (RFC 8252 §7.3):
/// listens on `127.0.0.1`, on a free port or a fixed one, for one request to the callback path.
///
/// ```swift
/// let listener = try await LoopbackRedirectListener.start()
/// let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
/// openBrowser(request.url)
/// let callback = try await listener.waitForCallback(timeout: .seconds(300))
/// let credentials = try await provider.exchange(callback: callback, for: request)
/// ```
public final class LoopbackRedirectListener: Sendable {
    /// The redirect URI to register and send: `http://127.0.0.1:<port><path>`.
    public let redirectURI: URL
    private let channel: any Channel
    private let callback: EventLoopPromise<URL>

    private init(redirectURI: URL, channel: any Channel, callback: EventLoopPromise<URL>) {
        self.redirectURI = redirectURI
        self.channel = channel
        self.callback = callback
    }

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - port: A fixed port, for providers that match redirect URIs exactly; `0` picks a free one.
    ///   - path: The callback path.
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` when the port cannot be bound.
    public static func start(port: Int = 0, path: String = "/callback") async throws(SessionKitError)
        -> LoopbackRedirectListener
    {
        let group = MultiThreadedEventLoopGroup.singleton
        let callback = group.next().makePromise(of: URL.self)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { child in
                    child.pipeline.configureHTTPServerPipeline().flatMap {
                        child.pipeline.addHandler(CallbackHandler(path: path, callback: callback))
                    }
                }
                .bind(host: "127.0.0.1", port: port)
                .get()
        } catch {
            callback.fail(error)
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "cannot listen on 127.0.0.1:\(port) for the browser's redirect; choose another port",
                underlyingError: error
            )
        }
        let bound = channel.localAddress?.port ?? port
        guard let uri = URL(string: "http://127.0.0.1:\(bound)\(path)") else {
            try? await channel.close()
            throw SessionKitError(code: .invalidInput, message: "the callback path '\(path)' makes no valid URL")
        }
        return LoopbackRedirectListener(redirectURI: uri, channel: channel, callback: callback)
    }

    /// Waits for the browser's redirect and returns its full URL, then stops listening.
    ///
    /// - Throws: ``SessionKitError/Code/timeout`` when no redirect arrives in time.
    public func waitForCallback(timeout: Duration) async throws(SessionKitError) -> URL {
        let callback = self.callback
        let timer = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout.seconds * 1e9))) {
            callback.fail(
                SessionKitError(code: .timeout, message: "no browser sign-in arrived within \(timeout); try again"))
        }
        defer { timer.cancel() }
        do {
            let url = try await callback.futureResult.get()
            // Give the success page a moment to reach the browser before the socket closes.
            try? await Task.sleep(for: .milliseconds(100))
            await stop()
            return url
        } catch {
            await stop()
            throw ProviderClient.wrap(error)
        }
    }

    /// Stops listening. Safe to call more than once.
    public func stop() async {
        try? await channel.close()
    }
}

/// Answers the callback request with a short page, and anything else with 404.
private final class CallbackHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let path: String
    let callback: EventLoopPromise<URL>

    init(path: String, callback: EventLoopPromise<URL>) {
        self.path = path
        self.callback = callback
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let target = head.uri
        let matches = target == path || target.hasPrefix(path + "?")
        let url = URL(string: "http://127.0.0.1\(target)")
        let ended =
            url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems }?
            .contains { $0.name == "error" } ?? false
        let (status, body): (HTTPResponseStatus, String) =
            matches && url != nil
            ? (
                .ok,
                ended
                    ? "Sign-in was not completed. You can close this window." : "Signed in. You can close this window."
            )
            : (.notFound, "Not found.")
        let page = "<!doctype html><meta charset=utf-8><title>sessionctl</title><p>\(body)</p>"
        var headers = HTTPHeaders([("Content-Type", "text/html; charset=utf-8"), ("Connection", "close")])
        headers.add(name: "Content-Length", value: String(page.utf8.count))
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: page)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        if matches, let url { callback.succeed(url) }
    }
}
