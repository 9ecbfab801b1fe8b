import Foundation
import SessionKit
import Testing

/// Which requests go through which proxy, as Go's `net/http` (and so kubelogin and gh) decides from `HTTPS_PROXY`,
/// `HTTP_PROXY` and `NO_PROXY`; and what the environment gives.
@Suite("Proxy rules and network options from the environment")
struct ProxyRulesTests {
    private let proxy = ProxyServer(host: "proxy.corp", port: 3128)

    private func through(_ url: String, exclusions: String) -> Bool {
        let rules = ProxyRules(https: proxy, http: proxy, exclusions: ProxyRules.exclusions(exclusions))
        return rules.server(for: URL(string: url)!) != nil
    }

    @Test(
        "NO_PROXY entries: names cover subdomains, a leading dot only subdomains, addresses, ranges, ports, *",
        arguments: [
            ("https://id.example.com/", "example.com", false),
            ("https://example.com/", "example.com", false),
            ("https://notexample.com/", "example.com", true),
            ("https://example.com/", ".example.com", true),
            ("https://id.example.com/", ".example.com", false),
            ("https://id.example.com/", "*.example.com", false),
            ("https://ID.Example.COM/", "example.com", false),
            ("https://10.1.2.3/", "10.0.0.0/8", false),
            ("https://11.1.2.3/", "10.0.0.0/8", true),
            ("https://192.168.1.5/", "192.168.1.5", false),
            ("https://[2001:db8::5]/", "2001:db8::/32", false),
            ("https://[2001:db9::5]/", "2001:db8::/32", true),
            ("https://git.corp:8443/", "git.corp:8443", false),
            ("https://git.corp/", "git.corp:8443", true),
            ("https://anything.org/", "*", false),
            ("https://anything.org/", "", true),
            ("https://anything.org/", " a.com , b.com ", true),
            ("https://b.com/", " a.com , b.com ", false),
        ])
    func exclusions(url: String, noProxy: String, proxied: Bool) {
        #expect(through(url, exclusions: noProxy) == proxied)
    }

    @Test(
        "loopback never goes through a proxy: the loopback redirect and a local emulator keep working",
        arguments: ["http://127.0.0.1:9400/", "http://localhost/", "https://[::1]:8443/", "http://127.8.9.10/"])
    func loopbackDirect(url: String) {
        #expect(!through(url, exclusions: ""))
    }

    @Test("https URLs take HTTPS_PROXY, http URLs HTTP_PROXY, other schemes none")
    func perScheme() throws {
        let other = ProxyServer(host: "plain.corp", port: 8080)
        let rules = ProxyRules(https: proxy, http: other)
        #expect(rules.server(for: URL(string: "https://a.org/")!) == proxy)
        #expect(rules.server(for: URL(string: "http://a.org/")!) == other)
        #expect(rules.server(for: URL(string: "ftp://a.org/")!) == nil)
        #expect(ProxyRules(https: proxy).server(for: URL(string: "http://a.org/")!) == nil)
    }

    @Test("proxy URLs: scheme optional, default ports, credentials kept but never described")
    func parsing() throws {
        let plain = try ProxyServer(parsing: "proxy.corp:3128")
        #expect(plain == ProxyServer(host: "proxy.corp", port: 3128))
        #expect(try ProxyServer(parsing: "http://proxy.corp").port == 80)
        let socks = try ProxyServer(parsing: "socks5://127.0.0.1")
        #expect(socks.kind == .socks5 && socks.port == 1080)
        let withUser = try ProxyServer(parsing: "http://alice:s%3Acret@[2001:db8::1]:3128")
        #expect(withUser.user == "alice" && withUser.password?.unsafeRawValue == "s:cret")
        #expect(withUser.host == "2001:db8::1")
        #expect(withUser.description == "http://alice@[2001:db8::1]:3128")
        #expect(!"\(withUser) \(String(reflecting: withUser))".contains("cret"))
    }

    @Test(
        "a proxy URL SessionKit cannot use is an error that names the variable and the form, not the password",
        arguments: ["http://user:pw-hunter2@", "https://proxy.corp:3128", "ftp://proxy.corp", "http://"])
    func refused(text: String) {
        #expect {
            try ProxyServer(parsing: text, variable: "HTTPS_PROXY")
        } throws: { error in
            guard let error = error as? SessionKitError else { return false }
            return error.code == .invalidConfiguration && error.message.contains("HTTPS_PROXY")
                && error.message.contains("http://HOST:PORT") && !error.message.contains("hunter2")
        }
    }

    @Test("the environment: lower case wins, empty is unset, no proxy variable means no rules")
    func fromEnvironment() throws {
        let options = try NetworkOptions.fromEnvironment([
            "HTTPS_PROXY": "http://upper:1", "https_proxy": "http://lower:2", "HTTP_PROXY": "",
            "NO_PROXY": "a.com,b.com",
        ])
        #expect(options.proxy?.https == ProxyServer(host: "lower", port: 2))
        #expect(options.proxy?.http == nil)
        #expect(options.proxy?.exclusions == ["a.com", "b.com"])
        #expect(try NetworkOptions.fromEnvironment(["NO_PROXY": "a.com"]).isDefault)
        #expect(try NetworkOptions.fromEnvironment([:]).isDefault)
    }

    @Test("SSL_CERT_FILE is trusted besides the system's, and must hold a certificate")
    func sslCertFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-rules-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty.pem")
        try Data().write(to: empty)
        #expect(throws: SessionKitError.self) { try NetworkOptions.fromEnvironment(["SSL_CERT_FILE": empty.path]) }
        #expect(throws: SessionKitError.self) {
            try NetworkOptions.fromEnvironment(["SSL_CERT_FILE": folder.appendingPathComponent("missing").path])
        }
        let system = "/etc/ssl/certs/ca-certificates.crt"
        if FileManager.default.fileExists(atPath: system) {
            let options = try NetworkOptions.fromEnvironment(["SSL_CERT_FILE": system])
            #expect(options.certificateAuthorityFiles == [system])
        }
    }
}
