import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An upstream that answers the first request on each connection (`200`, `ok`, kept alive) and closes the
/// connection when a second request comes on it, without a word: what a server does that drops an idle keep-alive
/// connection just as a request goes out on it. Plain sockets, bodiless requests only.
final class ClosingUpstream: Sendable {
    let port: Int
    private let listener: Int32
    private let counts = Mutex((requests: 0, connections: 0, dropped: 0))

    /// The requests it has read, the connections it accepted, and the requests it closed a connection on.
    var seen: (requests: Int, connections: Int, dropped: Int) { counts.withLock { $0 } }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard fd >= 0, bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw CocoaError(.fileWriteUnknown)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops accepting; connections being served end with their clients.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            counts.withLock { $0.connections += 1 }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var pending: [UInt8] = []
        var served = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            while let end = Self.headEnd(in: pending) {
                pending.removeFirst(end)
                counts.withLock { $0.requests += 1 }
                guard served == 0 else {
                    counts.withLock { $0.dropped += 1 }
                    return
                }
                served += 1
                let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok".utf8)
                _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            pending += chunk[0..<count]
        }
    }

    /// Where the first request head in `bytes` ends (after its blank line), if it is all there.
    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }
}
