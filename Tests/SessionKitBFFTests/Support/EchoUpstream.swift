import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SessionKitSupport
import SessionKitTestSupport

/// An upstream API for the forwarding tests: it answers every request with the headers it received, the body's
/// size and SHA-256, and headers that a proxy must not pass back (hop-by-hop ones and a cookie).
final class EchoUpstream: Sendable {
    let url: URL
    private let server: Task<Void, any Error>

    private init(url: URL, server: Task<Void, any Error>) {
        self.url = url
        self.server = server
    }

    static func start() async throws -> EchoUpstream {
        let port = try await LoopbackPort.unused()
        let router = Router()
        let echo: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            if request.uri.path.hasPrefix("/bytes/"),
                let count = request.uri.path.split(separator: "/").last.flatMap({ Int($0) })
            {
                return EchoUpstream.bytes(count)
            }
            var hasher = SHA256()
            var size = 0
            for try await buffer in request.body {
                size += buffer.readableBytes
                hasher.update(data: Data(buffer.readableBytesView))
            }
            var received: [String: [String]] = [:]
            for field in request.headers { received[field.name.canonicalName, default: []].append(field.value) }
            let object: [String: Any] = [
                "method": request.method.rawValue, "path": request.uri.string, "headers": received, "size": size,
                "sha256": Hex.string(hasher.finalize()),
            ]
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.connection] = "X-Upstream-Hop"
            headers[HTTPField.Name("X-Upstream-Hop")!] = "must not reach the browser"
            headers[HTTPField.Name("Keep-Alive")!] = "timeout=5"
            headers[.setCookie] = "upstream=1; Path=/"
            headers[HTTPField.Name("X-Upstream")!] = "kept"
            headers[HTTPField.Name("Access-Control-Allow-Origin")!] = "*"
            headers[.cacheControl] = "public, max-age=3600"
            let data = try JSONSerialization.data(withJSONObject: object)
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        for method: HTTPRequest.Method in [.get, .post, .put, .delete] {
            router.on("**", method: method, use: echo)
        }
        var logger = Logger(label: "echo-upstream")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        let url = URL(string: "http://127.0.0.1:\(port)/")!
        let upstream = EchoUpstream(url: url, server: server)
        let browser = CookieBrowser()
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if (try? await browser.get(url.appendingPathComponent("ready")))?.status == 200 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await browser.shutdown()
        return upstream
    }

    /// `count` bytes (`i % 251` at offset i), streamed in 64 KiB chunks without a length.
    static func bytes(_ count: Int) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/octet-stream"],
            body: ResponseBody { writer in
                var offset = 0
                while offset < count {
                    let size = min(65_536, count - offset)
                    try await writer.write(ByteBuffer(bytes: (offset..<(offset + size)).map { UInt8($0 % 251) }))
                    offset += size
                }
                try await writer.finish(nil)
            })
    }

    func stop() async {
        server.cancel()
        _ = await server.result
    }
}
