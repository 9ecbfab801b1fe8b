import Foundation
import SessionKitTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes sent as they are to a loopback server, for requests no HTTP client would send (malformed escapes,
/// broken cookies, invalid request lines). Returns the status code of the answer, or `nil` when the server
/// closed the connection without one.
enum RawHTTP {
    static func send(_ request: String, port: Int, timeout: TimeInterval = 10) -> Int? {
        guard let fd = connection(sending: request, port: port, timeout: timeout) else { return nil }
        defer { close(fd) }
        var answer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &answer, answer.count, 0)
        guard count >= 12 else { return nil }
        let line = String(decoding: answer[0..<count], as: UTF8.self)
        guard line.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(line.dropFirst(9).prefix(3))
    }

    /// Sends `requests` in one write (pipelined; the last should say `Connection: close`) and returns everything
    /// the server sent until it closed the connection, or `nil` when it could not be reached. The blocking reads
    /// run on a thread of their own: on one of Swift's two pool threads here, they would starve an in-process
    /// server's router.
    static func pipelined(_ requests: String, port: Int, timeout: TimeInterval = 10) async -> String? {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: pipelinedNow(requests, port: port, timeout: timeout)) }.start()
        }
    }

    private static func pipelinedNow(_ requests: String, port: Int, timeout: TimeInterval) -> String? {
        guard let fd = connection(sending: requests, port: port, timeout: timeout) else { return nil }
        defer { close(fd) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A connection to the loopback `port` with `request` sent on it whole and reads that give up after
    /// `timeout`, or `nil` (nothing left open) when either fails. The caller closes it.
    private static func connection(sending request: String, port: Int, timeout: TimeInterval) -> Int32? {
        guard let fd = IdleConnections.connect(port: port) else { return nil }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count
        else {
            close(fd)
            return nil
        }
        return fd
    }
}
