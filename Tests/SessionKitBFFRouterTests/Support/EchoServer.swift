import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The upstream API of the router tests, on a free loopback port in this process: it answers every request with
/// its method, path and query as received, and the anti-forgery and authorization headers it got.
struct EchoServer: Sendable {
    /// Where it listens (`http://127.0.0.1:PORT/`).
    let url: URL

    /// Runs `body` with a server started for it, and stops the server afterwards.
    static func with<T: Sendable>(_ body: (EchoServer) async throws -> T) async throws -> T {
        let router = Router()
        router.on("**", method: .get, use: echo)
        router.on("**", method: .post, use: echo)
        router.on("**", method: .put, use: echo)
        router.on("**", method: .patch, use: echo)
        router.on("**", method: .delete, use: echo)
        var logger = Logger(label: "echo-server")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        guard let port = await ports.first(where: { _ in true }), port > 0 else {
            throw EchoFailure(description: "the echo server did not start")
        }
        let result = try await body(EchoServer(url: URL(string: "http://127.0.0.1:\(port)/")!))
        server.cancel()
        _ = await server.result
        return result
    }

    @Sendable private static func echo(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let object: [String: String] = [
            "method": request.method.rawValue, "path": request.uri.string,
            "authorization": request.headers[.authorization] ?? "", "x-csrf": request.headers[.init("X-CSRF")!] ?? "",
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct EchoFailure: Error, CustomStringConvertible {
        let description: String
    }
}
