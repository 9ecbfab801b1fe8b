/// A plain `http://` upstream, parsed once from a forwarding target's base URL: the upstreams the event-loop
/// forwarding path (``ForwardingChannelHandler``) serves. An `https://` upstream, or one this parse refuses, is
/// always forwarded through AsyncHTTPClient.
struct PlainHTTPEndpoint: Hashable, Sendable {
    let host: String
    let port: Int
    /// `host[:port]`, as the `Host` header.
    let authority: String
    /// The base URL's path, without a trailing slash (often empty).
    let basePath: String

    /// `nil` unless `base` is `http://host[:port][/path]` with a host name or an IPv4 address, no user, query or
    /// fragment.
    init?(base: String) {
        guard base.hasPrefix("http://") else { return nil }
        let rest = base.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        guard !authority.isEmpty, !authority.contains("@"), !authority.hasPrefix("["), !rest.contains("?"),
            !rest.contains("#")
        else { return nil }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return nil }
        var port = 80
        if parts.count == 2 {
            guard let given = Int(parts[1]), (1...65535).contains(given) else { return nil }
            port = given
        }
        var basePath = String(rest[slash...])
        while basePath.hasSuffix("/") { basePath.removeLast() }
        self.host = String(parts[0])
        self.port = port
        self.authority = String(authority)
        self.basePath = basePath
    }
}
