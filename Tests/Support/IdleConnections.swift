import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TCP connections to a loopback port that send nothing, or half a request, and stay open: what a stuck
/// or hostile local program does to a listener.
package final class IdleConnections: Sendable {
    private let descriptors: [Int32]

    /// Opens `count` connections to `127.0.0.1:port`; every other one sends the start of a request line
    /// and never finishes it.
    package init(count: Int, port: Int) throws {
        var opened: [Int32] = []
        for index in 0..<count {
            guard let descriptor = Self.connect(port: port) else {
                for open in opened { Self.closeDescriptor(open) }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if index % 2 == 1 {
                let partial = "GET /callback?state="
                _ = partial.withCString { send(descriptor, $0, strlen($0), 0) }
            }
            opened.append(descriptor)
        }
        descriptors = opened
    }

    /// How many of the connections the other side has closed (reading gives end of file at once).
    package func closedByPeer() -> Int {
        var buffer = [UInt8](repeating: 0, count: 4096)
        return descriptors.filter { descriptor in
            recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT)) == 0
        }.count
    }

    /// Closes every connection.
    package func close() {
        for descriptor in descriptors { Self.closeDescriptor(descriptor) }
    }

    /// A TCP socket connected to `127.0.0.1:port`, or `nil` (with `errno` set) when it could not be opened.
    package static func connect(port: Int) -> Int32? {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            closeDescriptor(descriptor)
            return nil
        }
        return descriptor
    }

    static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }
}
