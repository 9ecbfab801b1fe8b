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
        guard let fd = IdleConnections.connect(port: port) else { return nil }
        defer { close(fd) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count
        else { return nil }
        var answer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &answer, answer.count, 0)
        guard count >= 12 else { return nil }
        let line = String(decoding: answer[0..<count], as: UTF8.self)
        guard line.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(line.dropFirst(9).prefix(3))
    }
}
