#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Which proxy a request goes through: one for `https` URLs, one for `http` URLs, and the hosts that go direct.
///
/// The rules are Go's `net/http` rules, which kubelogin and `gh` follow: a request to a loopback host (`localhost`,
/// `127.0.0.0/8`, `::1`) never goes through a proxy, so a loopback redirect or a local emulator keeps working behind a
/// corporate proxy; an exclusion is `*` (no proxy at all), a host name, which also covers its subdomains
/// (`example.com` covers `id.example.com`), a name with a leading dot, which covers only subdomains, an IP address
/// or a CIDR range, each optionally with `:PORT`.
public struct ProxyRules: Sendable, Hashable {
    /// The proxy for `https` URLs (`HTTPS_PROXY`), reached with `CONNECT`.
    public var https: ProxyServer?
    /// The proxy for `http` URLs (`HTTP_PROXY`).
    public var http: ProxyServer?
    /// The hosts that are reached directly (`NO_PROXY`'s entries).
    public var exclusions: [String]

    /// Rules with the given proxies and exclusions.
    public init(https: ProxyServer? = nil, http: ProxyServer? = nil, exclusions: [String] = []) {
        self.https = https
        self.http = http
        self.exclusions = exclusions
    }

    /// The entries of a `NO_PROXY` value: comma- or space-separated, trimmed, lower-cased.
    public static func exclusions(_ text: String?) -> [String] {
        guard let text else { return [] }
        return text.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() }
    }

    /// The proxy for `url`, or `nil` when it is reached directly.
    public func server(for url: URL) -> ProxyServer? {
        guard let host = url.host, let scheme = url.scheme?.lowercased() else { return nil }
        let server: ProxyServer? =
            switch scheme {
            case "https": https
            case "http": http
            default: nil
            }
        guard let server, !LoopbackHost.contains(host) else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return exclusions.contains { Self.excludes($0, host: bare.lowercased(), port: port) } ? nil : server
    }

    /// Whether the `NO_PROXY` entry `entry` covers `host` (lower case, no brackets) on `port`.
    static func excludes(_ entry: String, host: String, port: Int) -> Bool {
        if entry == "*" { return true }
        var pattern = Substring(entry)
        if let range = IPAddress.range(entry) { return range.contains(host) }
        // A trailing `:PORT` (not the colons of a bare IPv6 address, which IPAddress took above).
        if let colon = pattern.lastIndex(of: ":"), !pattern[..<colon].contains(":") {
            guard Int(pattern[pattern.index(after: colon)...]) == port else { return false }
            pattern = pattern[..<colon]
        }
        if pattern.hasPrefix("["), pattern.hasSuffix("]") { pattern = pattern.dropFirst().dropLast() }
        if IPAddress.range(String(pattern))?.contains(host) == true { return true }
        if pattern.hasPrefix(".") { return host.hasSuffix(pattern) }
        if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) }
        return host == pattern || host.hasSuffix("." + pattern)
    }
}

/// A proxy server: its host and port, and the user and password it asks for, if any.
///
/// Its description never shows the password.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// How the proxy is spoken to.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy: `CONNECT` for `https` URLs, absolute URLs for `http`.
        case http
        /// A SOCKS5 proxy (`socks5://`; the proxy resolves the names).
        case socks5
    }

    /// How the proxy is spoken to.
    public var kind: Kind
    /// The proxy's host.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The user name for the proxy's basic authentication, if it asks for one.
    public var user: String?
    /// The password for the proxy's basic authentication.
    public var password: Secret?

    /// A proxy at `host:port`.
    public init(kind: Kind = .http, host: String, port: Int, user: String? = nil, password: Secret? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.user = user
        self.password = password
    }

    /// Reads a proxy URL as `HTTPS_PROXY` holds it: `http://[USER:PASSWORD@]HOST[:PORT]` (the scheme may be left
    /// out; the port is 80 unless given), or `socks5://HOST[:PORT]` (1080 unless given).
    ///
    /// - Parameter variable: Where the text came from, for the error.
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` saying what is wrong and which form to use; the
    ///   message never repeats the password.
    public init(parsing text: String, variable: String = "the proxy setting") throws(SessionKitError) {
        let withScheme = text.contains("://") ? text : "http://" + text
        let form = "use the form http://HOST:PORT (or http://USER:PASSWORD@HOST:PORT, socks5://HOST:PORT)"
        guard let url = URL(string: withScheme), let host = url.host, !host.isEmpty else {
            throw SessionKitError(code: .invalidConfiguration, message: "\(variable) is not a proxy URL; \(form)")
        }
        let kind: Kind
        switch url.scheme?.lowercased() {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        case let other:
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "\(variable) names a proxy spoken to over \(other ?? "an unknown scheme"), which SessionKit "
                    + "does not speak; \(form)")
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.init(
            kind: kind, host: bare, port: url.port ?? (kind == .http ? 80 : 1080),
            user: url.user(percentEncoded: false), password: url.password(percentEncoded: false).map { Secret($0) })
    }

    /// `http://HOST:PORT`, with the user but never the password.
    public var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "\(kind.rawValue)://\(user.map { $0 + "@" } ?? "")\(host):\(port)"
    }
}
