/// The ``SessionKitError/underlyingError`` of a request whose TLS handshake failed, most often because no trusted
/// authority signed the server's certificate: a program with settings of its own (`sessionctl --ca-file`) can name
/// the one that adds an authority.
public struct CertificateTrustFailure: Error, Sendable, CustomStringConvertible {
    /// The server's host.
    public let host: String
    /// Why the handshake failed, as the TLS library says it ("certificate verify failed").
    public let reason: String
    /// The TLS library's own error.
    public let underlying: any Error

    /// A failure of the handshake with `host`.
    public init(host: String, reason: String, underlying: any Error) {
        self.host = host
        self.reason = reason
        self.underlying = underlying
    }

    /// "the TLS handshake with HOST failed (REASON)".
    public var description: String { "the TLS handshake with \(host) failed (\(reason))" }
}
