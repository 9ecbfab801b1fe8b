import AuthEmulator
import Foundation
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// A provider whose certificate a private authority signed, reached only through an HTTPS proxy
/// (`scripts/proxy-test-server.py`): what an internal Keycloak behind a corporate proxy is. The transports with
/// ``NetworkOptions``, then `sessionctl` with `--ca-file`, `SSL_CERT_FILE`, `HTTPS_PROXY` and `NO_PROXY`.
@Suite("A private certificate authority and an HTTPS proxy")
struct PrivateAuthorityProxyTests {
    private static let issuer = URL(string: "https://\(ProxyTestServer.host)/")!

    private func configuration() throws -> ProviderConfiguration {
        try ProviderConfiguration(
            issuer: Self.issuer, clientID: AuthEmulator.Client.nativeID, requestTimeout: .seconds(10))
    }

    private func network(_ proxy: ProxyTestServer, trusting: Bool, credentials: (String, String)? = nil)
        -> NetworkOptions
    {
        let server = ProxyServer(
            host: "127.0.0.1", port: proxy.port, user: credentials?.0, password: credentials.map { Secret($0.1) })
        return NetworkOptions(
            certificateAuthorityFiles: trusting ? [proxy.authority] : [], proxy: ProxyRules(https: server))
    }

    @Test("AsyncHTTPClientTransport signs in through the proxy, trusting the authority it is given")
    func asyncHTTPClientThroughProxy() async throws {
        try await ProxyTestServer.with { proxy in
            let provider = ProviderClient(
                configuration: try configuration(),
                transport: AsyncHTTPClientTransport(network: network(proxy, trusting: true)))
            let credentials = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            #expect(credentials.idToken != nil)
            let renewed = try await provider.renew(credentials)
            #expect(renewed.accessToken != credentials.accessToken)
            #expect(proxy.requests().contains("CONNECT idp.test:443"), "\(proxy.requests())")
        }
    }

    @Test("without the authority the handshake fails as an untrusted certificate, naming what to trust")
    func untrustedWithoutAuthority() async throws {
        try await ProxyTestServer.with { proxy in
            let provider = ProviderClient(
                configuration: try configuration(),
                transport: AsyncHTTPClientTransport(network: network(proxy, trusting: false)))
            let error = try await #require(throws: SessionKitError.self) { try await provider.metadata() }
            #expect(error.code == .networkFailure && error.isRetryable)
            let failure = try #require(error.underlyingError as? CertificateTrustFailure)
            #expect(failure.host == ProxyTestServer.host)
            #expect(failure.reason == "certificate verify failed")
            #expect(error.message.contains("certificateAuthorityFiles"), "\(error.message)")
        }
    }

    @Test("a proxy that asks for a password gets the one in its URL, and the error without it names no secret")
    func proxyAuthentication() async throws {
        try await ProxyTestServer.with(user: "proxy-user", password: "proxy-hunter2") { proxy in
            let signedIn = ProviderClient(
                configuration: try configuration(),
                transport: AsyncHTTPClientTransport(
                    network: network(proxy, trusting: true, credentials: ("proxy-user", "proxy-hunter2"))))
            _ = try await signedIn.metadata()
            let refused = ProviderClient(
                configuration: try configuration(),
                transport: AsyncHTTPClientTransport(network: network(proxy, trusting: true)))
            let error = try await #require(throws: SessionKitError.self) { try await refused.metadata() }
            #expect(error.code == .networkFailure)
            #expect(proxy.requests().contains("407 CONNECT idp.test:443"), "\(proxy.requests())")
            #expect(proxy.requests().filter { $0 == "CONNECT idp.test:443" }.count == 1)
            let options = network(proxy, trusting: true, credentials: ("proxy-user", "proxy-hunter2"))
            #expect(!"\(options) \(error)".contains("proxy-hunter2"))
        }
    }

    @Test("a certificate authority file that holds no certificate is a configuration error naming the file")
    func unreadableAuthority() async throws {
        let file = try TemporaryFolder(prefix: "sessionkit-ca").path + "/not-a-certificate.pem"
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: file))
        let options = NetworkOptions(certificateAuthorityFiles: [file])
        let checked = try #require(throws: SessionKitError.self) { try options.check() }
        #expect(checked.code == .invalidConfiguration && checked.message.contains(file))
        let transport = AsyncHTTPClientTransport(network: options)
        let request = HTTPRequest(method: "GET", url: Self.issuer)
        let error = try await #require(throws: SessionKitError.self) {
            try await transport.send(request, timeout: .seconds(5))
        }
        #expect(error.code == .invalidConfiguration && error.message.contains(file), "\(error)")
    }

    #if URLSessionOnLinux && !canImport(Darwin)
        @Test("URLSessionTransport on Linux refuses options it cannot apply, instead of ignoring them")
        func urlSessionOnLinuxRefuses() async throws {
            try await ProxyTestServer.with { proxy in
                let transport = URLSessionTransport(network: network(proxy, trusting: true))
                let request = HTTPRequest(method: "GET", url: Self.issuer)
                let error = try await #require(throws: SessionKitError.self) {
                    try await transport.send(request, timeout: .seconds(5))
                }
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains("AsyncHTTPClientTransport"), "\(error.message)")
                #expect(proxy.requests().isEmpty, "nothing was sent: \(proxy.requests())")
            }
        }

        @Test("URLSessionTransport reports a certificate it does not trust as a CertificateTrustFailure")
        func urlSessionUntrusted() async throws {
            let server = try await KubeTestServer.start()
            defer { server.stop() }
            let request = HTTPRequest(method: "GET", url: URL(string: "https://127.0.0.1:\(server.port)/version")!)
            let error = try await #require(throws: SessionKitError.self) {
                try await URLSessionTransport().send(request, timeout: .seconds(10))
            }
            #expect(error.code == .networkFailure)
            let failure = try #require(error.underlyingError as? CertificateTrustFailure, "\(error)")
            #expect(failure.reason.contains("self-signed certificate"), "\(failure)")
        }
    #endif
}

/// `sessionctl` against that provider, as a platform engineer sets it up.
@Suite("sessionctl with --ca-file, SSL_CERT_FILE, HTTPS_PROXY and NO_PROXY")
struct PrivateAuthorityProxyCLITests {
    private func cli(_ proxy: ProxyTestServer, _ extra: [String: String] = [:]) throws -> CLI {
        var environment = proxy.environment().merging(extra) { $1 }
        environment["SESSIONCTL_CLIENT_ID"] = AuthEmulator.Client.nativeID
        return try CLI.make(extra: environment)
    }

    @Test("configure --ca-file saves the authority; login, token and refresh go through the proxy")
    func caFileThroughProxy() async throws {
        try await ProxyTestServer.with { proxy in
            let cli = try cli(proxy)
            defer { cli.cleanUp() }
            let configure = try await cli.run([
                "configure", "--issuer", "https://idp.test/", "--client-id", AuthEmulator.Client.nativeID, "--ca-file",
                proxy.authority,
            ])
            #expect(configure.status == 0, "\(configure.output)")
            let saved = try String(
                contentsOf: cli.home.appendingPathComponent("config/sessionctl/config.json"), encoding: .utf8)
            #expect(saved.contains("\"ca_file\""), "\(saved)")
            try await cli.signIn()
            let token = try await cli.run(["token", "--min-ttl", "999999"])
            #expect(token.status == 0, "renewed through the proxy: \(token.output)")
            #expect(try await cli.run(["refresh"]).status == 0)
            #expect(proxy.requests().filter { $0 == "CONNECT idp.test:443" }.count >= 2, "\(proxy.requests())")
        }
    }

    @Test("without the authority: exit 4, the handshake named and the command that trusts it, nothing saved")
    func untrusted() async throws {
        try await ProxyTestServer.with { proxy in
            let cli = try cli(proxy, ["SESSIONCTL_ISSUER": "https://idp.test/"])
            defer { cli.cleanUp() }
            let login = try await cli.run(
                ["login", "--password-stdin", "--username", AuthEmulator.User.aliceEmail],
                input: AuthEmulator.User.alicePassword + "\n")
            #expect(login.status == 4, "\(login.output)")
            #expect(login.stderr.contains("certificate verify failed"), "\(login.output)")
            #expect(login.stderr.contains("sessionctl configure --profile default --ca-file FILE"), "\(login.output)")
            #expect(!login.output.contains(AuthEmulator.User.alicePassword))
            #expect(try await cli.run(["status"]).status == 1, "no session was made")
        }
    }

    @Test("SSL_CERT_FILE is trusted as --ca-file is")
    func sslCertFile() async throws {
        try await ProxyTestServer.with { proxy in
            let cli = try cli(proxy, ["SESSIONCTL_ISSUER": "https://idp.test/", "SSL_CERT_FILE": proxy.authority])
            defer { cli.cleanUp() }
            try await cli.signIn()
            #expect(proxy.requests().contains("CONNECT idp.test:443"))
        }
    }

    @Test("NO_PROXY sends the host direct, where its name does not resolve: exit 2, the session kept")
    func noProxy() async throws {
        try await ProxyTestServer.with { proxy in
            var cli = try cli(proxy, ["SESSIONCTL_ISSUER": "https://idp.test/", "SESSIONCTL_CA_FILE": proxy.authority])
            defer { cli.cleanUp() }
            try await cli.signIn()
            let through = proxy.requests().count
            cli.environment["NO_PROXY"] = "localhost,.example.com,idp.test"
            cli.environment["no_proxy"] = cli.environment["NO_PROXY"]
            let refresh = try await cli.run(["refresh"])
            #expect(refresh.status == 2, "\(refresh.output)")
            #expect(refresh.stderr.contains("could not reach idp.test (its name did not resolve)"), "\(refresh.output)")
            #expect(proxy.requests().count == through, "the proxy saw nothing more")
            #expect(try await cli.run(["status"]).status == 0, "the session is kept")
        }
    }

    @Test("a malformed HTTPS_PROXY: exit 4 naming the variable, never its password; a valid token still reads")
    func malformedProxy() async throws {
        try await ProxyTestServer.with { proxy in
            var cli = try cli(proxy, ["SESSIONCTL_ISSUER": "https://idp.test/", "SESSIONCTL_CA_FILE": proxy.authority])
            defer { cli.cleanUp() }
            try await cli.signIn()
            cli.environment["HTTPS_PROXY"] = "http://someone:proxy-hunter2@"
            cli.environment["https_proxy"] = cli.environment["HTTPS_PROXY"]
            let refresh = try await cli.run(["refresh"])
            #expect(refresh.status == 4, "\(refresh.output)")
            #expect(refresh.stderr.contains("HTTPS_PROXY is not a proxy URL"), "\(refresh.output)")
            #expect(!refresh.output.contains("proxy-hunter2"))
            let token = try await cli.run(["token"])
            #expect(token.status == 0, "a valid token needs no network: \(token.output)")
        }
    }

    @Test("configure --ca-file with a file that holds no certificate: exit 4, nothing saved")
    func notACertificate() async throws {
        let cli = try CLI.make()
        defer { cli.cleanUp() }
        let file = cli.home.appendingPathComponent("ca.pem").path
        try Data("-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n".utf8).write(
            to: URL(fileURLWithPath: file))
        let configure = try await cli.run(
            ["configure", "--issuer", "https://idp.test/", "--client-id", "x", "--ca-file", file])
        #expect(configure.status == 4, "\(configure.output)")
        #expect(configure.stderr.contains("\(file) holds no PEM certificate"), "\(configure.output)")
        #expect(
            !FileManager.default.fileExists(
                atPath: cli.home.appendingPathComponent("config/sessionctl/config.json").path))
    }
}
