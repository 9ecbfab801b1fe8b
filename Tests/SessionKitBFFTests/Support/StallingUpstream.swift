import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SessionKitTestSupport

/// An upstream that misbehaves as a slow or broken API does: `/trickle` sends its head and then one byte a
/// second for a minute, `/silent` sends its head and one byte and then nothing, `/late` answers only after a
/// minute, `/big` sends 2 MiB without announcing the length; `/trickle-announced` and `/silent-announced` do as
/// the first two with a `Content-Length`, and `/pieces` sends a small body of announced length in four writes.
final class StallingUpstream: Sendable {
    let url: URL
    private let server: Task<Void, any Error>

    private init(url: URL, server: Task<Void, any Error>) {
        self.url = url
        self.server = server
    }

    static func start() async throws -> StallingUpstream {
        let port = try await LoopbackPort.unused()
        let router = Router()
        // Each twice: streamed, and with the length announced (an answer the back end reads whole first).
        router.get("trickle") { _, _ in trickle(announcing: nil) }
        router.get("trickle-announced") { _, _ in trickle(announcing: 60) }
        router.get("silent") { _, _ in silent(announcing: nil) }
        router.get("silent-announced") { _, _ in silent(announcing: 10) }
        // 48 KiB of announced length in four pieces written 50 ms apart.
        router.get("pieces") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: Self.pieces.count) { writer in
                    for start in stride(from: 0, to: Self.pieces.count, by: 12 << 10) {
                        try await writer.write(ByteBuffer(bytes: Self.pieces[start..<start + (12 << 10)]))
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    try await writer.finish(nil)
                })
        }
        router.get("late") { _, _ -> String in
            try await Task.sleep(for: .seconds(60))
            return "late"
        }
        router.get("big") { _, _ in EchoUpstream.bytes(2 << 20) }
        router.get("ready") { _, _ in "ready" }
        var logger = Logger(label: "stalling-upstream")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        let upstream = StallingUpstream(url: URL(string: "http://127.0.0.1:\(port)/")!, server: server)
        let browser = CookieBrowser()
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if (try? await browser.get(upstream.url.appendingPathComponent("ready")))?.status == 200 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await browser.shutdown()
        return upstream
    }

    /// A head, then a byte a second for a minute.
    private static func trickle(announcing length: Int?) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain"],
            body: ResponseBody(contentLength: length) { writer in
                for _ in 0..<60 {
                    try await writer.write(ByteBuffer(string: "."))
                    try await Task.sleep(for: .seconds(1))
                }
                try await writer.finish(nil)
            })
    }

    /// A head and one byte, then nothing for a minute.
    private static func silent(announcing length: Int?) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain"],
            body: ResponseBody(contentLength: length) { writer in
                try await writer.write(ByteBuffer(string: "."))
                try await Task.sleep(for: .seconds(60))
                try await writer.finish(nil)
            })
    }

    /// What `/pieces` answers: 48 KiB, every byte its offset modulo 251.
    static let pieces = [UInt8]((0..<(48 << 10)).map { UInt8($0 % 251) })

    func stop() async {
        server.cancel()
        _ = await server.result
    }
}
