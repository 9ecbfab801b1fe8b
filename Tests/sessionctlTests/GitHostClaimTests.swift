import Foundation
import SessionKit
import Testing

@testable import sessionctl

/// The rule for which profile's token git gets, without a process: ``GitHostClaim`` over given profiles.
@Suite("sessionctl git-credential: the host-claim rule")
struct GitHostClaimTests {
    static let gitlab = ProfileSettings(issuer: "https://gitlab.example.com/", clientID: "a")
    static let auth0 = ProfileSettings(
        issuer: "https://tenant.eu.auth0.com/", clientID: "b", gitHosts: ["git.example.com:443", "[::1]:8443"])
    static let local = ProfileSettings(issuer: "http://127.0.0.1:8080/", clientID: "c")

    func answer(
        _ attributes: [String: String], named: String? = nil, allowsHTTP: Bool = false,
        profiles: [String: ProfileSettings] = ["gitlab": gitlab, "auth0": auth0, "local": local]
    ) -> String? {
        var request = GitCredentialRequest()
        request.attributes = attributes
        return try? GitHostClaim(profiles: profiles, named: named, allowsHTTP: allowsHTTP).profile(for: request)
    }

    @Test("a host and port, by the issuer's or a saved git host, with the protocol's default port")
    func claimed() {
        #expect(answer(["protocol": "https", "host": "gitlab.example.com"]) == "gitlab")
        #expect(answer(["protocol": "https", "host": "GitLab.Example.com:443"]) == "gitlab")
        #expect(answer(["protocol": "https", "host": "git.example.com"]) == "auth0")
        #expect(answer(["protocol": "https", "host": "[::1]:8443"]) == "auth0")
        #expect(answer(["protocol": "http", "host": "127.0.0.1:8080"]) == "local", "loopback http")
        #expect(answer(["protocol": "https", "host": "127.0.0.1:8080"]) == "local")
    }

    @Test("another host, port or name of the same machine is not claimed")
    func unclaimed() {
        #expect(answer(["protocol": "https", "host": "gitlab.example.com:8443"]) == nil)
        #expect(answer(["protocol": "https", "host": "gitlab.example.com."]) == nil)
        #expect(answer(["protocol": "https", "host": "evil.example.com"]) == nil)
        #expect(answer(["protocol": "https", "host": "tenant.eu.auth0.com:444"]) == nil)
        #expect(answer(["protocol": "http", "host": "localhost:8080"]) == nil)
        #expect(answer(["protocol": "http", "host": "127.0.0.1"]) == nil, "port 80 is not 8080")
        #expect(answer(["protocol": "https"]) == nil)
        #expect(answer(["protocol": "https", "host": "gitlab.example.com:0"]) == nil)
        #expect(answer(["protocol": "https", "host": "user@gitlab.example.com"]) == nil)
        #expect(answer(["host": "gitlab.example.com"]) == nil, "no protocol")
    }

    @Test("plain http only to loopback or with --allow-http; no other protocol")
    func protocols() {
        #expect(answer(["protocol": "http", "host": "gitlab.example.com:443"]) == nil)
        #expect(answer(["protocol": "http", "host": "gitlab.example.com:443"], allowsHTTP: true) == "gitlab")
        #expect(answer(["protocol": "http", "host": "gitlab.example.com"], allowsHTTP: true) == nil, "port 80")
        for scheme in ["ssh", "ftp", "file", "git", "HTTPS+x"] {
            #expect(answer(["protocol": scheme, "host": "gitlab.example.com:443"], allowsHTTP: true) == nil)
        }
    }

    @Test("a named profile answers only for what it claims; unnamed, exactly one profile must claim")
    func naming() {
        #expect(answer(["protocol": "https", "host": "gitlab.example.com"], named: "gitlab") == "gitlab")
        #expect(answer(["protocol": "https", "host": "gitlab.example.com"], named: "auth0") == nil)
        #expect(answer(["protocol": "https", "host": "gitlab.example.com"], named: "missing") == nil)
        var second = Self.local
        second.gitHosts = ["gitlab.example.com"]
        let profiles = ["gitlab": Self.gitlab, "second": second]
        #expect(answer(["protocol": "https", "host": "gitlab.example.com"], profiles: profiles) == nil)
        #expect(
            answer(["protocol": "https", "host": "gitlab.example.com"], named: "second", profiles: profiles) == "second"
        )
    }

    @Test("git hosts: the forms configure takes and how it saves them")
    func hosts() {
        #expect(GitHost("Git.Example.com", defaultPort: 443)?.description == "git.example.com:443")
        #expect(GitHost("git.example.com:8443", defaultPort: 443)?.description == "git.example.com:8443")
        #expect(GitHost("[2001:DB8::1]", defaultPort: 443)?.description == "[2001:db8::1]:443")
        #expect(GitHost("[::1]:8443", defaultPort: 80)?.authority(scheme: "https") == "[::1]:8443")
        #expect(GitHost("example.com:443", defaultPort: 443)?.authority(scheme: "https") == "example.com")
        for bad in [
            "", ":443", "a/b", "https://x", "x:", "x:65536", "x:-1", "x:08a", "::1", "[::1", "[x]:1", "a b", "é.com",
        ] {
            #expect(GitHost(bad, defaultPort: 443) == nil, "\(bad)")
        }
    }

    @Test("git_hosts in config.json: written by configure's encoder, read back the same; a wrong type named")
    func configFile() throws {
        let file = ConfigFile(profiles: ["auth0": Self.auth0])
        let data = try JSONEncoder().encode(file)
        #expect(String(decoding: data, as: UTF8.self).contains("\"git_hosts\":[\"git.example.com:443\""))
        #expect(try ConfigFile(json: JSONValue(parsing: data)).profiles == file.profiles)
        let wrong = Data(#"{"profiles": {"p": {"git_hosts": "git.example.com"}}}"#.utf8)
        #expect(throws: ConfigFormatError.self) { try ConfigFile(json: JSONValue(parsing: wrong)) }
    }
}
