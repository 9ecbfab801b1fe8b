import NIOSSL
import PostgresNIO
public import SecureStore
import Synchronization

extension PostgresSessionStore {
    /// Whether and how the store's connections use TLS, as libpq's `sslmode`.
    ///
    /// In a database URL: `?sslmode=disable|prefer|require|verify-ca|verify-full`, with
    /// `&sslrootcert=/path/ca.pem` for a certificate authority the system does not trust. Use
    /// ``verifyFull(rootCertificates:)`` in production: only it refuses a server that is not the one named in
    /// the URL. Without `sslmode`, ``prefer``, as libpq.
    public enum TLS: Sendable, Equatable, CustomStringConvertible {
        /// Plain TCP. For a database on the same host or a private network only.
        case disable
        /// TLS when the server offers it, plain otherwise; the certificate is not checked.
        case prefer
        /// TLS or no connection; the certificate is not checked (encrypts, but does not authenticate the server).
        case require
        /// TLS, and the certificate must chain to the system's roots or to the PEM file given; any host name.
        case verifyCA(rootCertificates: String?)
        /// TLS, the certificate must chain to the system's roots or to the PEM file given, and name the host.
        case verifyFull(rootCertificates: String?)

        /// The mode as `sslmode` spells it.
        public var description: String {
            switch self {
            case .disable: "disable"
            case .prefer: "prefer"
            case .require: "require"
            case .verifyCA: "verify-ca"
            case .verifyFull: "verify-full"
            }
        }

        /// Whether the server's certificate is checked (and `sslrootcert` means anything).
        var verifiesCertificates: Bool {
            switch self {
            case .disable, .prefer, .require: false
            case .verifyCA, .verifyFull: true
            }
        }

        /// Reads `sslmode` and `sslrootcert` as a database URL carries them.
        ///
        /// - Throws: ``SecureStoreError/Code/invalidArgument`` for an unknown mode, or a root certificate file
        ///   with a mode that does not check certificates.
        init(sslmode: String?, rootCertificates: String?) throws(SecureStoreError) {
            switch sslmode ?? "prefer" {
            case "disable": self = .disable
            case "allow", "prefer": self = .prefer
            case "require": self = .require
            case "verify-ca": self = .verifyCA(rootCertificates: rootCertificates)
            case "verify-full": self = .verifyFull(rootCertificates: rootCertificates)
            case let other:
                throw SecureStoreError(
                    code: .invalidArgument,
                    message: "the database URL's sslmode '\(other)' is not one of disable, prefer, require, "
                        + "verify-ca, verify-full")
            }
            if rootCertificates != nil, !verifiesCertificates {
                throw SecureStoreError(
                    code: .invalidArgument,
                    message: "the database URL names sslrootcert, which only sslmode=verify-ca or verify-full use; "
                        + "add one of them")
            }
        }

        /// The TLS settings for PostgresNIO, checked by making a context from them once; `nil` for `disable`.
        ///
        /// - Throws: ``SecureStoreError/Code/invalidArgument`` when the root certificate file cannot be read.
        func tlsConfiguration() throws(SecureStoreError) -> TLSConfiguration? {
            var tls = TLSConfiguration.makeClientConfiguration()
            let roots: String?
            switch self {
            case .disable: return nil
            case .prefer, .require:
                tls.certificateVerification = .none
                roots = nil
            case .verifyCA(let file):
                tls.certificateVerification = .noHostnameVerification
                roots = file
            case .verifyFull(let file):
                tls.certificateVerification = .fullVerification
                roots = file
            }
            if let roots { tls.trustRoots = .file(roots) }
            do {
                _ = try NIOSSLContext(configuration: tls)
            } catch {
                throw SecureStoreError(
                    code: .invalidArgument,
                    message: "the TLS settings for the database cannot be used (\(type(of: error))); check that "
                        + "sslrootcert names a readable PEM file of certificates",
                    underlyingError: error)
            }
            return tls
        }

        /// PostgresNIO's setting for one connection.
        func connectionTLS() throws(SecureStoreError) -> PostgresConnection.Configuration.TLS {
            guard let tls = try tlsConfiguration() else { return .disable }
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: tls)
            } catch {
                throw SecureStoreError(
                    code: .invalidArgument, message: "the TLS settings for the database cannot be used",
                    underlyingError: error)
            }
            return self == .prefer ? .prefer(context) : .require(context)
        }

        /// PostgresNIO's setting for the client's pool.
        func clientTLS() throws(SecureStoreError) -> PostgresClient.Configuration.TLS {
            guard let tls = try tlsConfiguration() else { return .disable }
            return self == .prefer ? .prefer(tls) : .require(tls)
        }
    }
}

extension PostgresSessionStore {
    /// A warning when the connection runs in plaintext although the URL did not ask for that explicitly: with
    /// `sslmode=prefer` (the default, as in libpq) a server that offers no TLS is used unencrypted, and nothing
    /// else says so. `nil` when the connection is encrypted, or when `sslmode=disable` chose plaintext. Call it
    /// once at start-up (one statement); the warning is also logged at `warning` level. A store over the
    /// application's client checks a connection of that client, when its listener's settings prefer TLS.
    ///
    /// - Throws: ``SecureStore/SecureStoreError/Code/unavailable`` when the database cannot be reached.
    public func encryptionWarning() async throws(SecureStoreError) -> String? {
        guard configuration.tls == .prefer else { return nil }
        let rows = try await call("checking the connection's encryption") { [self] connection in
            try await execute(connection, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        }
        let encrypted = (try? rows.first?.decode(Bool.self)) ?? false
        guard !encrypted else { return nil }
        let warning =
            "the connection to \(configuration) is not encrypted: sslmode=prefer fell back to plaintext because the "
            + "server offers no TLS; sessions travel in clear between this server and PostgreSQL. Enable TLS on the "
            + "server and use sslmode=verify-full, or say sslmode=disable if the network is private"
        logger.warning("\(warning)")
        return warning
    }
}
