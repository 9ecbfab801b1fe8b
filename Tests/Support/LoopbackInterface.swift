#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the machine's loopback interface offers, for tests that need IPv6.
package enum LoopbackInterface {
    /// Whether this machine has the IPv6 loopback address `::1` (containers often do not).
    package static let hasIPv6: Bool = {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET6, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer {
            #if canImport(Glibc)
                _ = Glibc.close(descriptor)
            #else
                _ = Darwin.close(descriptor)
            #endif
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
            }
        }
    }()
}
