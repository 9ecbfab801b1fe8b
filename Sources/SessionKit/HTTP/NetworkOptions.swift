#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a transport needs to know about the network it is on: certificate authorities to trust besides the
/// system's, and the proxy to go through.
///
/// The common case is a company's provider (Keycloak, Dex, an internal Auth0 custom domain) whose certificate is
/// signed by a private certificate authority, reached through an HTTPS proxy. Build the options once and give them
/// to the transport:
///
/// ```swift
/// var network = try NetworkOptions.fromEnvironment()  // HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE, as curl and Go
/// network.certificateAuthorityFiles.append("/etc/pki/company-root.pem")
/// let provider = ProviderClient(configuration: configuration, transport: AsyncHTTPClientTransport(network: network))
/// ```
///
/// Both transports honour them: `AsyncHTTPClientTransport` (Linux) fully; ``URLSessionTransport`` on Apple platforms
/// trusts the authorities when it evaluates the server's certificate and sets the proxy on its session. On Linux,
/// FoundationNetworking has no setting for either, so a `URLSessionTransport` there given options refuses its
/// requests, saying so, rather than ignore them.
public struct NetworkOptions: Sendable, Hashable {
    /// Paths of PEM files, each with one certificate authority or more, trusted besides the system's own.
    public var certificateAuthorityFiles: [String]
    /// The proxies and the hosts they are not used for; `nil` connects directly.
    public var proxy: ProxyRules?

    /// Options with the given authorities and proxy; the default is the system's trust and direct connections.
    public init(certificateAuthorityFiles: [String] = [], proxy: ProxyRules? = nil) {
        self.certificateAuthorityFiles = certificateAuthorityFiles
        self.proxy = proxy
    }

    /// Whether these options change nothing: the system's trust store and direct connections.
    public var isDefault: Bool { certificateAuthorityFiles.isEmpty && proxy == nil }

    /// The options the environment gives, read as curl and Go's `net/http` read it: `HTTPS_PROXY` for `https`
    /// requests, `HTTP_PROXY` for `http`, `NO_PROXY` for the hosts that skip them (each also in lower case, which
    /// wins when both are set), and `SSL_CERT_FILE`, a PEM file trusted besides the system's authorities.
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` when a proxy variable is not a proxy URL, or
    ///   `SSL_CERT_FILE` names a file that holds no PEM certificate.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(SessionKitError) -> NetworkOptions
    {
        func value(_ name: String) -> String? {
            for key in [name.lowercased(), name] {
                if let value = environment[key], !value.isEmpty { return value }
            }
            return nil
        }
        let https = try value("HTTPS_PROXY").map { text throws(SessionKitError) in
            try ProxyServer(parsing: text, variable: "HTTPS_PROXY")
        }
        let http = try value("HTTP_PROXY").map { text throws(SessionKitError) in
            try ProxyServer(parsing: text, variable: "HTTP_PROXY")
        }
        var options = NetworkOptions()
        if https != nil || http != nil {
            options.proxy = ProxyRules(https: https, http: http, exclusions: ProxyRules.exclusions(value("NO_PROXY")))
        }
        if let file = environment["SSL_CERT_FILE"], !file.isEmpty {
            options.certificateAuthorityFiles = [file]
        }
        try options.check()
        return options
    }

    /// Checks that every certificate authority file can be read and holds a PEM certificate.
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` naming the file and what is wrong with it.
    public func check() throws(SessionKitError) {
        for path in certificateAuthorityFiles {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw SessionKitError(
                    code: .invalidConfiguration,
                    message: "the certificate authority file \(path) cannot be read; give the path of a PEM file "
                        + "that holds the authority's certificate")
            }
            guard !PEMCertificates.der(in: String(decoding: contents, as: UTF8.self)).isEmpty else {
                throw SessionKitError(
                    code: .invalidConfiguration,
                    message: "the certificate authority file \(path) holds no PEM certificate (no line "
                        + "\"-----BEGIN CERTIFICATE-----\"); convert a DER file with `openssl x509 -inform der -in "
                        + "FILE -out FILE.pem`")
            }
        }
    }
}
