import Foundation
import SessionKit
import SessionKitLoopback

/// django-oidc-provider (juanifioren's, `Interop/django-oidc-provider`) as an ``InteropProvider``: one server
/// for all scenarios, started by `.ci/run` (or by hand with `Interop/django-oidc-provider/start.sh`).
///
/// Unlike the other providers it has no device flow and no revocation endpoint, does not revoke the token
/// family when a spent refresh token is replayed, and matches redirect URIs exactly (port included), so
/// browser sign-ins name one of the URIs registered in `interop/fixtures.py`.
struct DjangoOIDCProviderInteropProvider: InteropProvider {
    let base: URL

    /// The running server: `SESSIONKIT_INTEROP_DJANGO_OIDC_PROVIDER_URL` (as `.ci/run` sets it), else the port
    /// that `start.sh` recorded for a process that is still alive; `nil` otherwise.
    static var running: URL? {
        LoopbackInteropServer.running(
            variable: "SESSIONKIT_INTEROP_DJANGO_OIDC_PROVIDER_URL", folder: "django-oidc-provider")
    }

    static func start() throws -> DjangoOIDCProviderInteropProvider {
        guard let base = running else {
            throw TestFailure(
                "django-oidc-provider is not running: start it with Interop/django-oidc-provider/start.sh, or set "
                    + "SESSIONKIT_INTEROP_DJANGO_OIDC_PROVIDER_URL (SESSIONKIT_REQUIRE_INTEROP=1 makes its absence "
                    + "a failure)")
        }
        return DjangoOIDCProviderInteropProvider(base: base)
    }

    /// The loopback redirect ports registered for the code-flow client (`REDIRECT_PORTS` in
    /// `interop/fixtures.py`), below the ephemeral range.
    static let redirectPorts = 31871...31880

    var name: String { "django-oidc-provider" }
    var issuer: URL { base.appendingPathComponent("openid") }
    var username: String { "interop-user" }
    var password: String { "interop-password-not-a-secret" }  // public test fixture
    var overrides: EndpointOverrides { .init() }
    var supportsDeviceFlow: Bool { false }
    var supportsRevocation: Bool { false }
    var revokesFamilyOnReplay: Bool { false }
    /// `sessionkit-confidential` from `interop/fixtures.py` (a public test fixture).
    var confidentialClient: (id: String, secret: String)? {
        ("sessionkit-confidential", "interop-confidential-secret-not-a-secret")
    }

    func clientID(for flow: SignInFlow) -> String {
        switch flow {
        case .browser: "sessionkit-authcode"
        case .password, .device: "sessionkit-password"
        }
    }

    /// The browser flow needs an exact registered redirect URI: the first registered port that is free.
    func loginArguments(for flow: SignInFlow) async throws -> [String] {
        guard flow == .browser else { return [] }
        for port in Self.redirectPorts {
            let uri = "http://127.0.0.1:\(port)/callback"
            guard let probe = try? await LoopbackRedirectListener.start(redirectURI: try LoopbackRedirectURI(uri))
            else { continue }
            await probe.stop()
            return ["--redirect-uri", uri]
        }
        throw TestFailure("no registered redirect port is free (\(Self.redirectPorts))")
    }

    /// Django's login form, then django-oidc-provider's consent page, which public clients always get.
    func completeBrowserSignIn(at authorizationURL: URL, in browser: ScriptedBrowser) async throws
        -> ScriptedBrowser.Page
    {
        let login = try await browser.open(authorizationURL)
        let consent = try await browser.submit(login, ["username": username, "password": password])
        guard consent.html.contains("name=\"allow\"") else {
            throw TestFailure(
                "django-oidc-provider showed no consent page: \(consent.url.path), HTTP \(consent.status)")
        }
        return try await browser.submit(consent, ["allow": "Authorize"])
    }

    func approveDevice(userCode: String, verificationURI: URL, in browser: ScriptedBrowser) async throws {
        throw TestFailure("django-oidc-provider has no device flow")
    }

    func refreshGrants(presenting refreshTokens: [String]) async throws -> Int {
        try await LoopbackInteropServer.refreshGrants(at: base, presenting: refreshTokens)
    }

    func stop() async {}
}
