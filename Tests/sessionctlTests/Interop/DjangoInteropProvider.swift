import Foundation
import SessionKit

/// django-oauth-toolkit (`Interop/django-oidc`) as an ``InteropProvider``: one server for all scenarios,
/// started by `.ci/run` (or by hand with `Interop/django-oidc/start.sh`), one client per flow.
struct DjangoInteropProvider: InteropProvider {
    let base: URL

    /// The running server: `SESSIONKIT_INTEROP_DJANGO_URL` (as `.ci/run` sets it), else the port that
    /// `start.sh` recorded for a process that is still alive; `nil` otherwise.
    static var running: URL? {
        LoopbackInteropServer.running(variable: "SESSIONKIT_INTEROP_DJANGO_URL", folder: "django-oidc")
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

    /// Asks the project's counting middleware (`interop/token_requests.py`).
    func refreshGrants(presenting refreshTokens: [String]) async throws -> Int {
        try await LoopbackInteropServer.refreshGrants(at: base, presenting: refreshTokens)
    }

    func stop() async {}
}
