import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A forge's address as the git credential helper matches it: a host, compared without case, and a port.
///
/// Read from git's `host=` attribute (`HOST` or `HOST:PORT`, an IPv6 address in brackets), from
/// `configure --git-host`, and from an issuer URL. Nothing is resolved or normalised beyond case: `localhost` and
/// `127.0.0.1` are two hosts, as are `example.com` and `example.com.`, so a claim covers exactly what it names.
struct GitHost: Hashable, CustomStringConvertible {
    /// The host name or address, lower-cased; an IPv6 address without its brackets.
    let host: String
    /// The port: the one named, else the protocol's default.
    let port: Int

    /// The default port of `scheme` (`https` 443, `http` 80), `nil` for any other.
    static func defaultPort(of scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "https": 443
        case "http": 80
        default: nil
        }
    }

    /// Reads `HOST`, `HOST:PORT`, `[IPv6]` or `[IPv6]:PORT`, with `defaultPort` when no port is named; `nil` for
    /// anything else (empty, a scheme, a path, user information, a port outside 1...65535).
    init?(_ text: String, defaultPort: Int) {
        let bytes = Array(text.utf8)
        let name: ArraySlice<UInt8>
        var rest: ArraySlice<UInt8>
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            name = bytes[1..<close]
            rest = bytes[(close + 1)...]
            guard name.contains(UInt8(ascii: ":")), name.allSatisfy({ Self.isHex($0) || $0 == 0x3A || $0 == 0x2E })
            else { return nil }
        } else {
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            name = bytes[..<colon]
            rest = bytes[colon...]
            guard name.allSatisfy(Self.isHostNameByte) else { return nil }
        }
        guard !name.isEmpty else { return nil }
        var port = defaultPort
        if !rest.isEmpty {
            guard rest.removeFirst() == UInt8(ascii: ":"), (1...5).contains(rest.count),
                rest.allSatisfy({ (0x30...0x39).contains($0) }),
                let number = Int(String(decoding: rest, as: UTF8.self)),
                (1...65_535).contains(number)
            else { return nil }
            port = number
        }
        self.host = String(decoding: name, as: UTF8.self).lowercased()
        self.port = port
    }

    /// The host and port of `url`, the port from its scheme when it names none; `nil` unless it is `https` or
    /// `http` with a host.
    init?(url: URL) {
        guard let scheme = url.scheme, let defaultPort = Self.defaultPort(of: scheme), var host = url.host,
            !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host.lowercased()
        self.port = url.port ?? defaultPort
    }

    /// Whether the host is this machine's loopback interface: `localhost`, `::1`, or `127.x.y.z`.
    var isLoopback: Bool { LoopbackHost.contains(host) }

    /// `HOST:PORT`, an IPv6 address in brackets: the form `configure --git-host` takes.
    var description: String { bracketedHost + ":\(port)" }

    /// The host and port as a URL names them for `scheme`: without the port when it is the scheme's default.
    func authority(scheme: String) -> String {
        Self.defaultPort(of: scheme) == port ? bracketedHost : description
    }

    private var bracketedHost: String { host.contains(":") ? "[\(host)]" : host }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// An ASCII letter or digit, `-`, `.` or `_`: what DNS names and IPv4 addresses are made of.
    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }
}
