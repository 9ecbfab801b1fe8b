import NIOCore
import NIOHTTP1
import NIOPosix
import SessionKit
import SessionKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension LoopbackRedirectListener {
    /// Binds `addresses` on one port (the first picks it when `port` is 0). For a second address, a machine
    /// without it (no IPv6 loopback) is skipped; any other failure is an error.
    static func bind(
        addresses: [String], port: Int, path: String, state: LoopbackListenerState, configuration: Configuration
    ) async throws(SessionKitError) -> (channels: [any Channel], port: Int) {
        var channels: [any Channel] = []
        var port = port
        for (index, address) in addresses.enumerated() {
            do {
                let channel = try await bootstrap(
                    route: LoopbackRoute(
                        state: state, callbackPath: path, responseTimeout: configuration.responseTimeout,
                        onIgnored: configuration.onIgnoredRequest),
                    configuration: configuration
                )
                .bind(to: try SocketAddress(ipAddress: address, port: port))
                .get()
                port = channel.localAddress?.port ?? port
                channels.append(channel)
            } catch {
                if index > 0, let io = error as? IOError, [EADDRNOTAVAIL, EAFNOSUPPORT].contains(io.errnoCode) {
                    continue
                }
                for channel in channels { try? await channel.close() }
                let shown = address.contains(":") ? "[\(address)]" : address
                throw SessionKitError(
                    code: .invalidConfiguration,
                    message: "cannot listen on \(shown):\(port) for the browser's redirect (\(reason(error))); "
                        + "register and use a redirect URI with another port",
                    underlyingError: error
                )
            }
        }
        return (channels, port)
    }

    private static func bootstrap(route: LoopbackRoute, configuration: Configuration) -> ServerBootstrap {
        let limit = configuration.maxRequestBytes
        let idle = TimeAmount.nanoseconds(configuration.idleTimeout.clampedNanoseconds)
        return ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    let pipeline = child.pipeline.syncOperations
                    try pipeline.addHandler(RequestSizeLimitHandler(limit: limit))
                    try pipeline.addHandler(IdleStateHandler(readTimeout: idle))
                    try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                    try pipeline.addHandler(LoopbackHTTPHandler(route: route))
                }
            }
    }

    private static func reason(_ error: any Error) -> String {
        guard let io = error as? IOError else { return "\(error)" }
        switch io.errnoCode {
        case EADDRINUSE: return "another program uses the port"
        case EACCES: return "permission denied: ports below 1024 need privileges"
        case EADDRNOTAVAIL: return "the address is not available on this machine"
        default: return String(cString: strerror(io.errnoCode))
        }
    }
}
