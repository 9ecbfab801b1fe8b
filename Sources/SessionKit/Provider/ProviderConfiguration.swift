#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Where and how to talk to one OAuth 2.0 / OpenID Connect provider for one client.
///
/// ```swift
/// let configuration = try ProviderConfiguration(
///     issuer: URL(string: "https://example.eu.auth0.com/")!,
///     clientID: "qPmD3ExampleClientID"
/// )
/// ```
public struct ProviderConfiguration: Sendable {
    /// The issuer exactly as the provider's ID tokens carry it in `iss`; discovery is read from
    /// `<issuer>/.well-known/openid-configuration`.
    public var issuer: URL
    /// The client id registered at the provider.
    public var clientID: String
    /// The client secret, for confidential clients only. Native apps and CLIs have none.
    public var clientSecret: Secret?
    /// How the client secret is sent, when there is one: chosen from discovery unless set.
    public var clientAuthentication: ClientAuthenticationMethod
    /// The API audience to request access tokens for (Auth0's `audience` parameter), if any.
    public var audience: String?
    /// The default scope for sign-in. `offline_access` asks for a refresh token.
    ///
    /// Left at ``defaultScope`` (not given, or `nil`), `offline_access` is sent only when the provider's discovery
    /// lists it in `scopes_supported` or lists no scopes: providers such as django-oauth-toolkit issue refresh
    /// tokens without it and refuse it as an unknown scope. A scope set here is sent exactly as it is.
    public var scope: String {
        didSet { usesDefaultScope = false }
    }
    /// Whether ``scope`` is the default one, which follows the provider's `scopes_supported`.
    package private(set) var usesDefaultScope: Bool
    /// Endpoints to use instead of, or in addition to, those the discovery document lists.
    public var endpoints: EndpointOverrides
    /// Allowed clock difference, in seconds, when checking `exp`, `iat`, `nbf` and `auth_time`.
    public var leeway: TimeInterval
    /// How long one request may take before it fails with ``SessionKitError/Code/timeout``.
    public var requestTimeout: Duration
    /// The shortest time between two JWKS fetches triggered by the same unknown key id. A key id not seen before
    /// always gets one fetch, whatever this interval: a provider may rotate its key at the very answer that names
    /// it (OpenID Connect Core 10.1.1).
    public var jwksRefetchInterval: Duration
    /// The key that binds the tokens to this client (DPoP, RFC 9449), or `nil` for bearer tokens (the default).
    /// With a key, token, revocation and userinfo requests carry a proof signed with it, and the provider issues
    /// tokens only that key can use; ``DPoPKey/stored(in:forKey:)`` keeps it beside the session.
    public var dpop: DPoPKey?
    /// When a browser sign-in pushes its parameters to the provider first (Pushed Authorization Requests,
    /// RFC 9126) and sends the browser with only `client_id` and a `request_uri`: ``PushedAuthorization/whenRequired``
    /// (the default) when discovery says `require_pushed_authorization_requests`, ``PushedAuthorization/always`` on
    /// every sign-in.
    public var pushedAuthorization: PushedAuthorization = .whenRequired

    /// The scope SessionKit asks for when none is given: sign-in, profile, email and a refresh token.
    public static let defaultScope = "openid profile email offline_access"

    /// Creates a configuration.
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` when the issuer or an endpoint override is not
    ///   an absolute `https` URL (plain `http` is accepted for loopback hosts only), or the client id is empty.
    public init(
        issuer: URL,
        clientID: String,
        clientSecret: Secret? = nil,
        clientAuthentication: ClientAuthenticationMethod = .automatic,
        audience: String? = nil,
        scope: String? = nil,
        endpoints: EndpointOverrides = .init(),
        leeway: TimeInterval = 60,
        requestTimeout: Duration = .seconds(30),
        jwksRefetchInterval: Duration = .seconds(60)
    ) throws(SessionKitError) {
        try Self.checkSecure(issuer, role: "issuer")
        guard Self.requestTimeouts.contains(requestTimeout) else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message:
                    "the request timeout \(requestTimeout) is not between 1 ms and 1 hour; choose one in that range"
            )
        }
        for (name, url) in endpoints.all { try Self.checkSecure(url, role: "\(name) endpoint override") }
        guard !clientID.isEmpty else {
            throw SessionKitError(code: .invalidConfiguration, message: "the client id is empty; set the client id")
        }
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientAuthentication = clientAuthentication
        self.audience = audience
        self.scope = scope ?? Self.defaultScope
        self.usesDefaultScope = scope == nil
        self.endpoints = endpoints
        self.leeway = leeway
        self.requestTimeout = requestTimeout
        self.jwksRefetchInterval = jwksRefetchInterval
    }

    /// The request timeouts accepted; a value set outside them later is clamped into them when used.
    static let requestTimeouts: ClosedRange<Duration> = .milliseconds(1) ... .seconds(3600)

    /// ``requestTimeout`` clamped into 1 ms ... 1 hour, so that no arithmetic on it can overflow.
    var effectiveRequestTimeout: Duration {
        min(max(requestTimeout, Self.requestTimeouts.lowerBound), Self.requestTimeouts.upperBound)
    }

    /// Checks that `url` is absolute `https`, or `http` to a loopback address.
    static func checkSecure(_ url: URL, role: String) throws(SessionKitError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the \(role) '\(url.absoluteString)' is not an absolute URL; use https://host/..."
            )
        }
        if scheme == "https" { return }
        if scheme == "http" && LoopbackHost.contains(host) { return }
        throw SessionKitError(
            code: .invalidConfiguration,
            message: "the \(role) '\(url.absoluteString)' must use https (plain http is allowed only for "
                + "127.0.0.1, ::1 and localhost)"
        )
    }
}

/// Endpoints that override the discovery document, for providers whose discovery omits some (the
/// revocation and device-authorization endpoints often are) or that have no discovery at all.
public struct EndpointOverrides: Sendable, Equatable {
    /// The authorization endpoint.
    public var authorization: URL?
    /// The token endpoint.
    public var token: URL?
    /// The userinfo endpoint.
    public var userInfo: URL?
    /// The RFC 7009 revocation endpoint.
    public var revocation: URL?
    /// The RFC 8628 device-authorization endpoint.
    public var deviceAuthorization: URL?
    /// The JWKS document.
    public var jwks: URL?
    /// The end-session (RP-initiated logout) endpoint.
    public var endSession: URL?
    /// The RFC 9126 pushed authorization request endpoint.
    public var pushedAuthorization: URL?
    /// The OpenID CIBA backchannel authentication endpoint.
    public var backchannelAuthentication: URL?

    /// Creates overrides; `nil` means "use discovery".
    public init(
        authorization: URL? = nil,
        token: URL? = nil,
        userInfo: URL? = nil,
        revocation: URL? = nil,
        deviceAuthorization: URL? = nil,
        jwks: URL? = nil,
        endSession: URL? = nil,
        pushedAuthorization: URL? = nil,
        backchannelAuthentication: URL? = nil
    ) {
        self.authorization = authorization
        self.token = token
        self.userInfo = userInfo
        self.revocation = revocation
        self.deviceAuthorization = deviceAuthorization
        self.jwks = jwks
        self.endSession = endSession
        self.pushedAuthorization = pushedAuthorization
        self.backchannelAuthentication = backchannelAuthentication
    }

    /// The overrides that are set, with their names.
    var all: [(name: String, url: URL)] {
        [
            ("authorization", authorization), ("token", token), ("userinfo", userInfo), ("revocation", revocation),
            ("device authorization", deviceAuthorization), ("JWKS", jwks),
            ("end-session", endSession), ("pushed authorization request", pushedAuthorization),
            ("backchannel authentication", backchannelAuthentication),
        ].compactMap { name, url in url.map { (name, $0) } }
    }
}
