public import SessionKit

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A loopback redirect URI (RFC 8252 §7.3) that a ``LoopbackRedirectListener`` can serve: `http`, host
/// `127.0.0.1`, `[::1]` or `localhost`, any path, any port or none (port 80).
///
/// The text is kept exactly as given: the URI sent to the provider is byte for byte the one registered
/// there (no `:80` added, no path normalised), as providers that match redirect URIs exactly require.
public struct LoopbackRedirectURI: Sendable, Hashable, CustomStringConvertible {
    /// The URI, exactly as given.
    public let url: URL
    /// The port to listen on: the URI's, or 80 when it names none.
    public let port: Int
    /// The path the browser requests (`/` when the URI has none), percent-encoded as in the URI.
    public let path: String
    /// The loopback addresses to listen on: `127.0.0.1`, `::1`, or both for `localhost`.
    let addresses: [String]

    /// Checks `text` and keeps it as given.
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` for `https` (a loopback listener cannot serve
    ///   it), a host that is not loopback, a user name, a fragment, or text that is not a URI.
    public init(_ text: String) throws(SessionKitError) {
        guard let components = URLComponents(string: text), let url = URL(string: text),
            let scheme = components.scheme?.lowercased()
        else {
            throw Self.invalid(text, "is not a URI; use the form http://127.0.0.1:8765/callback")
        }
        guard scheme == "http" else {
            throw Self.invalid(
                text,
                scheme == "https"
                    ? "uses https, which a loopback listener cannot serve; register and use http://127.0.0.1:PORT/PATH "
                        + "(RFC 8252 §7.3: loopback redirects are plain http)"
                    : "is not an http URI; use the form http://127.0.0.1:8765/callback"
            )
        }
        let host = (components.host ?? "").lowercased()
        let addresses: [String]
        switch host {
        case "127.0.0.1": addresses = ["127.0.0.1"]
        case "[::1]", "::1": addresses = ["::1"]
        case "localhost": addresses = ["127.0.0.1", "::1"]
        default:
            throw Self.invalid(
                text,
                "does not name a loopback host; use 127.0.0.1, [::1] or localhost, since the browser is sent "
                    + "back to this machine")
        }
        guard components.user == nil, components.password == nil, components.fragment == nil else {
            throw Self.invalid(text, "has a user name or a fragment; remove them")
        }
        let port = components.port ?? 80
        guard (1...65_535).contains(port) else {
            throw Self.invalid(text, "has a port outside 1...65535")
        }
        self.url = url
        self.port = port
        self.path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.addresses = addresses
    }

    /// The URI, exactly as given.
    public var description: String { url.absoluteString }

    private static func invalid(_ text: String, _ reason: String) -> SessionKitError {
        SessionKitError(code: .invalidConfiguration, message: "the redirect URI '\(text)' \(reason)")
    }
}
