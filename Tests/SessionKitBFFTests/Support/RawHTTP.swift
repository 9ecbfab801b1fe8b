import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes sent as they are to a loopback server, for requests no HTTP client would send (malformed escapes,
/// broken cookies, invalid request lines). Returns the status code of the answer, or `nil` when the server
/// closed the connection without one.
enum RawHTTP {
    static func send(_ request: String, port: Int, timeout: TimeInterval = 10) -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
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
