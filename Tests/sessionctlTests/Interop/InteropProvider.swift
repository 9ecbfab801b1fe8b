import Foundation
import SessionKit

/// A sign-in flow. Some providers register one client per flow (django-oauth-toolkit allows one grant type
/// per application).
enum SignInFlow: Sendable {
    case password, browser, device
}

/// A provider the shared interop scenarios run against: the AuthEmulator, django-oauth-toolkit or
/// django-oidc-provider.
///
/// Everything a scenario needs that differs between providers is here; the scenarios themselves are the
/// same for every provider, and where a provider lacks a capability they check what it does instead.
protocol InteropProvider: Sendable {
    /// The provider's name in test output.
    var name: String { get }
    /// The issuer, exactly as its ID tokens carry it.
    var issuer: URL { get }
    /// The fixture user's sign-in name and password (public test fixtures).
    var username: String { get }
    var password: String { get }
    /// Endpoints the provider's discovery document leaves out.
    var overrides: EndpointOverrides { get }
    /// The client registered for `flow`.
    func clientID(for flow: SignInFlow) -> String
    /// Extra `sessionctl login` arguments for `flow`, such as an exact `--redirect-uri` for a provider that
    /// matches redirect URIs exactly. None by default.
    func loginArguments(for flow: SignInFlow) async throws -> [String]
    /// Whether the provider has a device authorization endpoint (RFC 8628). True by default.
    var supportsDeviceFlow: Bool { get }
    /// Whether the provider has a revocation endpoint (RFC 7009), so that logout can revoke. True by default.
    var supportsRevocation: Bool { get }
    /// Whether replaying a rotated-out refresh token revokes the whole token family (the newest refresh and
    /// access tokens too), rather than only refusing the replayed token. True by default.
    var revokesFamilyOnReplay: Bool { get }
    /// A confidential client (id and secret, public test fixtures) that may use the password grant, or `nil`
    /// when the provider's set-up has none. None by default.
    var confidentialClient: (id: String, secret: String)? { get }
    /// Signs the fixture user in on the provider's own pages, starting at an authorization URL, and follows
    /// the redirect to the client's loopback listener. Returns that listener's page.
    func completeBrowserSignIn(at authorizationURL: URL, in browser: ScriptedBrowser) async throws
        -> ScriptedBrowser.Page
    /// Approves a device sign-in on the provider's own pages, as the user would on a phone.
    func approveDevice(userCode: String, verificationURI: URL, in browser: ScriptedBrowser) async throws
    /// How many refresh-token grants the provider has received that presented one of `refreshTokens`.
    func refreshGrants(presenting refreshTokens: [String]) async throws -> Int
    /// Releases what the provider holds for this scenario.
    func stop() async
}

extension InteropProvider {
    func loginArguments(for flow: SignInFlow) async throws -> [String] { [] }
    var supportsDeviceFlow: Bool { true }
    var supportsRevocation: Bool { true }
    var revokesFamilyOnReplay: Bool { true }
    var confidentialClient: (id: String, secret: String)? { nil }

    /// A SessionKit configuration for `flow`'s client.
    func configuration(for flow: SignInFlow = .password) throws -> ProviderConfiguration {
        try ProviderConfiguration(
            issuer: issuer, clientID: clientID(for: flow), endpoints: overrides, requestTimeout: .seconds(30))
    }

    /// `sessionctl configure` arguments for `flow`'s client.
    func configureArguments(for flow: SignInFlow) -> [String] {
        var arguments = ["configure", "--issuer", issuer.absoluteString, "--client-id", clientID(for: flow)]
        if let revocation = overrides.revocation { arguments += ["--revocation-endpoint", revocation.absoluteString] }
        if let device = overrides.deviceAuthorization { arguments += ["--device-endpoint", device.absoluteString] }
        return arguments
    }
}
