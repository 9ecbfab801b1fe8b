#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// IPv4 and IPv6 addresses and CIDR ranges, as `NO_PROXY` names them, parsed by the C library's `inet_pton`.
enum IPAddress {
    /// An address range: the first `prefix` bits of `bytes`.
    struct Range {
        let bytes: [UInt8]
        let prefix: Int

        /// Whether `host` is an address of the same family inside the range.
        func contains(_ host: String) -> Bool {
            guard let address = IPAddress.bytes(host), address.count == bytes.count else { return false }
            var remaining = prefix
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let bits = min(remaining, 8)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                guard mine & mask == theirs & mask else { return false }
                remaining -= bits
            }
            return true
        }
    }

    /// `text` as a range: an address (every bit counts) or `ADDRESS/PREFIX`; `nil` when it is neither.
    static func range(_ text: String) -> Range? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let bytes = bytes(String(parts[0])) else { return nil }
        guard parts.count == 2 else { return Range(bytes: bytes, prefix: bytes.count * 8) }
        guard let prefix = Int(parts[1]), (0...bytes.count * 8).contains(prefix) else { return nil }
        return Range(bytes: bytes, prefix: prefix)
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address, or `nil` when `text` is neither.
    static func bytes(_ text: String) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16)
        if text.contains(":") {
            return inet_pton(AF_INET6, text, &buffer) == 1 ? buffer : nil
        }
        return inet_pton(AF_INET, text, &buffer) == 1 ? Array(buffer.prefix(4)) : nil
    }
}
