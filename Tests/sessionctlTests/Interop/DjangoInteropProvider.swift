import Crypto
import Foundation
import SessionKit

#if canImport(Glibc)
    import Glibc
#endif

/// django-oauth-toolkit (`Interop/django-oidc`) as an ``InteropProvider``: one server for all scenarios,
/// started by `.ci/run` (or by hand with `Interop/django-oidc/start.sh`), one client per flow.
struct DjangoInteropProvider: InteropProvider {
    let base: URL

    /// The running server: `SESSIONKIT_INTEROP_DJANGO_URL` (as `.ci/run` sets it), else the port that
    /// `start.sh` recorded for a process that is still alive; `nil` otherwise.
    static var running: URL? {
        if let url = ProcessInfo.processInfo.environment["SESSIONKIT_INTEROP_DJANGO_URL"], !url.isEmpty {
            return URL(string: url)
        }
        let run = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Interop/django-oidc/var/run")
        func read(_ name: String) -> String? {
            (try? String(contentsOf: run.appendingPathComponent(name), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // A port file left by a server that is gone (a crash, a reboot) does not count.
        guard let pid = read("pid").flatMap({ pid_t($0) }), kill(pid, 0) == 0, let port = read("port") else {
            return nil
        }
        return URL(string: "http://127.0.0.1:\(port)")
    }

    static func start() throws -> DjangoInteropProvider {
        guard let base = running else {
            throw TestFailure(
                "django-oauth-toolkit is not running: start it with Interop/django-oidc/start.sh, or set "
                    + "SESSIONKIT_INTEROP_DJANGO_URL (SESSIONKIT_REQUIRE_INTEROP=1 makes its absence a failure)")
        }
        return DjangoInteropProvider(base: base)
    }

    var name: String { "django-oauth-toolkit" }
    var issuer: URL { base.appendingPathComponent("o") }
    var username: String { "interop-user" }
    var password: String { "interop-password-not-a-secret" }  // public test fixture
    var overrides: EndpointOverrides {
        var overrides = EndpointOverrides()
        overrides.revocation = base.appendingPathComponent("o/revoke_token/")
        overrides.deviceAuthorization = base.appendingPathComponent("o/device-authorization/")
        return overrides
    }

    func clientID(for flow: SignInFlow) -> String {
        switch flow {
        case .password: "sessionkit-password"
        case .browser: "sessionkit-authcode"
        case .device: "sessionkit-device"
        }
    }

    /// Django's login form, then django-oauth-toolkit redirects (no consent page: `skip_authorization`).
    func completeBrowserSignIn(at authorizationURL: URL, in browser: ScriptedBrowser) async throws
        -> ScriptedBrowser.Page
    {
        let login = try await browser.open(authorizationURL)
        return try await browser.submit(login, ["username": username, "password": password])
    }

    /// Django's login form, the user-code form, then the accept/deny form.
    func approveDevice(userCode: String, verificationURI: URL, in browser: ScriptedBrowser) async throws {
        var components = URLComponents(url: verificationURI, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "user_code", value: userCode)]
        let login = try await browser.open(components?.url ?? verificationURI)
        let codeForm = try await browser.submit(login, ["username": username, "password": password])
        let confirm = try await browser.submit(codeForm, ["user_code": userCode])
        let done = try await browser.submit(confirm, ["action": "accept"])
        guard done.status == 200, done.url.path.contains("device-grant-status") else {
            throw TestFailure(
                "django-oauth-toolkit did not approve the device: ended on \(done.url.path), HTTP \(done.status)")
        }
    }

    /// Asks the project's counting middleware (`interop/token_requests.py`), which knows refresh tokens by
    /// their SHA-256 only.
    func refreshGrants(presenting refreshTokens: [String]) async throws -> Int {
        let digests = refreshTokens.map { token in
            SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
        }
        var components = URLComponents(
            url: base.appendingPathComponent("interop/token-requests/"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "refresh_token_sha256", value: digests.joined(separator: ","))]
        let url = components?.url ?? base
        let response = try await AsyncHTTPClientTransport().send(
            HTTPRequest(method: "GET", url: url), timeout: .seconds(10))
        guard response.status == 200, let count = try JSONValue(parsing: response.body)["presenting"]?.intValue else {
            throw TestFailure("the token-request counter answered HTTP \(response.status)")
        }
        return count
    }

    func stop() async {}
}
