#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The forge `git-credential configure` sets git up for: a scheme and a host and port, which name the git config key
/// `credential.<scheme>://<host>[:<port>].helper` (git matches it against a remote's URL: that forge only).
struct GitForge: Equatable, CustomStringConvertible {
    /// `https`, or `http` for a forge on this machine.
    let scheme: String
    /// The host and port.
    let host: GitHost

    /// Why a `--host` value names no forge.
    struct Invalid: Error, CustomStringConvertible {
        /// What is wrong and what to give instead.
        let description: String
    }

    /// Reads `HOST[:PORT]` (https) or `https://HOST[:PORT]` or `http://HOST[:PORT]`, a `/` at the end allowed; plain
    /// http only for this machine, as the helper answers it.
    init(_ text: String) throws(Invalid) {
        var scheme = "https"
        var rest = Substring(text)
        if let separator = text.firstRange(of: "://") {
            scheme = text[..<separator.lowerBound].lowercased()
            rest = text[separator.upperBound...]
            if rest.hasSuffix("/") { rest = rest.dropLast() }
        }
        guard let port = GitHost.defaultPort(of: scheme), let host = GitHost(String(rest), defaultPort: port) else {
            throw Invalid(
                description: "--host '\(text)' is not HOST[:PORT] or an https URL of a forge without a path; give the "
                    + "forge's host as its git URLs name it, such as gitlab.example.com, git.example.com:8443 or "
                    + "https://gitlab.example.com")
        }
        try self.init(scheme: scheme, host: host)
    }

    /// The issuer's scheme, host and port: a forge that is its own provider.
    init(issuer: URL) throws(Invalid) {
        guard let scheme = issuer.scheme?.lowercased(), let host = GitHost(url: issuer) else {
            throw Invalid(
                description: "the issuer \(issuer.absoluteString) is not an https URL; name the forge with --host")
        }
        try self.init(scheme: scheme, host: host)
    }

    private init(scheme: String, host: GitHost) throws(Invalid) {
        if scheme == "http" && !host.isLoopback {
            throw Invalid(
                description: "http://\(host.authority(scheme: scheme)) would send the token unencrypted; the helper "
                    + "answers plain http only for this machine (localhost, 127.x.y.z, ::1): use the forge's https URL")
        }
        self.scheme = scheme
        self.host = host
    }

    /// `https://host` or `http://host:port`: the URL that git's config key names (the port only when not the
    /// scheme's own).
    var description: String { scheme + "://" + host.authority(scheme: scheme) }

    /// `credential.<URL>.helper`.
    var helperKey: String { "credential.\(self).helper" }

    /// The value of `--host` that names this forge again: `HOST[:PORT]` for https, the URL for http.
    var option: String { scheme == "https" ? host.authority(scheme: scheme) : description }
}
