import Foundation
import PostgresNIO
import SecureStore
import SessionKitPostgresTestSupport
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

#if canImport(Glibc)
    import Glibc
#endif

/// The database URL's `sslmode` and `sslrootcert`, as libpq reads them.
@Suite("PostgreSQL TLS settings")
struct TLSSettingsTests {
    typealias Configuration = PostgresSessionStore.Configuration

    @Test("sslmode and sslrootcert are read as libpq reads them; prefer without them")
    func modes() async throws {
        let base = "postgres://app:pw@db.example.com/sessions"
        #expect(try Configuration(url: base).tls == .prefer)
        #expect(try Configuration(url: base + "?sslmode=disable").tls == .disable)
        #expect(try Configuration(url: base + "?sslmode=require").tls == .require)
        #expect(try Configuration(url: base + "?sslmode=verify-ca").tls == .verifyCA(rootCertificates: nil))
        #expect(
            try Configuration(url: base + "?sslmode=verify-full&sslrootcert=/etc/ca.pem").tls
                == .verifyFull(rootCertificates: "/etc/ca.pem"))
        let described = try Configuration(url: base + "?sslmode=verify-full").description
        #expect(described == "postgres://app:<REDACTED>@db.example.com:5432/sessions?sslmode=verify-full")
    }

    @Test("an unknown sslmode, an unknown parameter, or a root file with a mode that ignores it is refused")
    func refused() async {
        let base = "postgres://app:secret-pw@db.example.com/sessions"
        for (query, says) in [
            ("?sslmode=always", "sslmode 'always'"),
            ("?connect_timeout=3", "'connect_timeout'"),
            ("?sslmode=require&sslrootcert=/etc/ca.pem", "sslrootcert"),
        ] {
            let error = await storeError { _ = try Configuration(url: base + query) }
            #expect(error?.code == .invalidArgument, "\(query)")
            #expect(error?.message.contains(says) == true, "\(query): \(error?.message ?? "")")
            #expect(error?.message.contains("secret-pw") == false)
        }
    }
}

/// TLS against the test cluster, which scripts/postgres-start.sh starts with a certificate for the name
/// `localhost` only (not the address 127.0.0.1), signed by a throw-away authority recorded in .postgres/ca.
@Suite("PostgreSQL over TLS", .enabled(if: TestPostgres.hasTLS, TestPostgres.tlsNote))
struct TLSTests {
    /// A store on the test database with `sslmode` (and the authority when `trusted`), optionally by host name.
    func store(_ mode: String, trusted: Bool = false, host: String? = nil, port: Int? = nil) throws
        -> PostgresSessionStore
    {
        guard var components = URLComponents(string: try #require(TestPostgres.url)) else {
            throw SecureStoreError(code: .invalidArgument, message: "SESSIONKIT_POSTGRES_URL is not a URL")
        }
        if let host { components.host = host }
        if let port { components.port = port }
        components.queryItems =
            [URLQueryItem(name: "sslmode", value: mode)]
            + (trusted ? [URLQueryItem(name: "sslrootcert", value: try TestPostgres.certificateAuthority())] : [])
        return TestPostgres.running(
            try PostgresSessionStore(
                service: "tests.tls", configuration: .init(url: try #require(components.string)),
                keys: TestPostgres.keys()))
    }

    /// Whether the store's connection is encrypted, as the server sees it.
    func encrypted(_ store: PostgresSessionStore) async throws -> Bool {
        let rows = try await store.raw("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        return try #require(rows.first).decode(Bool.self)
    }

    @Test("require, prefer and verify-full with the authority encrypt; disable does not")
    func encrypts() async throws {
        #expect(try await encrypted(store("require")))
        #expect(try await encrypted(store("prefer")))
        #expect(try await encrypted(store("verify-full", trusted: true, host: "localhost")))
        #expect(try await !encrypted(store("disable")))
    }

    @Test("sslmode=prefer that falls back to plaintext is warned about; encrypted or sslmode=disable is not")
    func plaintextWarning() async throws {
        #expect(try await store("prefer").encryptionWarning() == nil, "the server offers TLS: prefer encrypts")
        #expect(try await store("disable").encryptionWarning() == nil, "plaintext asked for explicitly")
        // A server that offers no TLS: a proxy that answers the TLS request with 'N', as such a server does.
        let url = try #require(TestPostgres.url)
        let database = try #require(URLComponents(string: url))
        let proxy = try ProxyProcess(arguments: ["\(try #require(database.port))"])
        defer { proxy.stop() }
        let fallen = try store("prefer", port: proxy.port)
        #expect(try await !encrypted(fallen), "the connection through the proxy is plaintext")
        let found = try await fallen.encryptionWarning()
        let warning = try #require(found)
        #expect(warning.contains("not encrypted") && warning.contains("sslmode=verify-full"))
        #expect(!warning.contains(try #require(database.password)), "no password in the warning")
    }

    @Test("verify-full refuses an unknown authority and a certificate for another name; verify-ca checks no name")
    func verifies() async throws {
        let unknown = await storeError { _ = try await store("verify-full", host: "localhost").raw("SELECT 1") }
        #expect(unknown?.code == .permissionDenied)
        #expect(unknown?.message.contains("sslrootcert") == true, "\(unknown?.message ?? "")")
        // The certificate names localhost, not the address the URL has.
        let otherName = await storeError { _ = try await store("verify-full", trusted: true).raw("SELECT 1") }
        #expect(otherName?.code == .permissionDenied, "\(otherName?.message ?? "no error")")
        #expect(try await encrypted(store("verify-ca", trusted: true)))
    }
}
