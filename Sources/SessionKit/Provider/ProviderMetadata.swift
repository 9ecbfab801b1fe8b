#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The parts of a provider's OpenID Connect discovery document (or RFC 8414 metadata) that SessionKit
/// uses, merged with the configured ``EndpointOverrides``.
public struct ProviderMetadata: Sendable, Equatable, Decodable {
    /// The issuer the document names; it must equal the configured issuer.
    public var issuer: String
    /// The authorization endpoint.
    public var authorizationEndpoint: URL?
    /// The token endpoint.
    public var tokenEndpoint: URL?
    /// The userinfo endpoint.
    public var userInfoEndpoint: URL?
    /// The revocation endpoint.
    public var revocationEndpoint: URL?
    /// The device-authorization endpoint.
    public var deviceAuthorizationEndpoint: URL?
    /// The JWKS document.
    public var jwksURI: URL?
    /// Where a relying party sends the browser to end the user's session at the provider (OpenID Connect
    /// RP-Initiated Logout 1.0; Auth0 serves it at `/oidc/logout`).
    public var endSessionEndpoint: URL?
    /// The grant types the provider says it supports.
    public var grantTypesSupported: [String]?
    /// The ID-token signing algorithms the provider says it uses.
    public var idTokenSigningAlgorithms: [String]?
    /// The ways of authenticating a client at the token endpoint the provider says it accepts.
    public var tokenEndpointAuthMethods: [String]?
    /// The scopes the provider says it supports (`scopes_supported`), when it lists them.
    public var scopesSupported: [String]?
    /// Where a client pushes its authorization parameters before sending the browser (RFC 9126,
    /// `pushed_authorization_request_endpoint`).
    public var pushedAuthorizationRequestEndpoint: URL?
    /// Whether the provider accepts authorization requests only through its pushed authorization request endpoint
    /// (RFC 9126, `require_pushed_authorization_requests`); `nil` when the document does not say (`false`).
    public var requirePushedAuthorizationRequests: Bool?
    /// Where a client asks the provider to authenticate a user on their own device (OpenID CIBA Core 1.0,
    /// `backchannel_authentication_endpoint`).
    public var backchannelAuthenticationEndpoint: URL?
    /// How the provider delivers a backchannel authentication's tokens (`backchannel_token_delivery_modes_supported`:
    /// `poll`, `ping`, `push`), when it says; SessionKit polls.
    public var backchannelTokenDeliveryModes: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userInfoEndpoint = "userinfo_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case jwksURI = "jwks_uri"
        case endSessionEndpoint = "end_session_endpoint"
        case grantTypesSupported = "grant_types_supported"
        case idTokenSigningAlgorithms = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
        case scopesSupported = "scopes_supported"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case backchannelAuthenticationEndpoint = "backchannel_authentication_endpoint"
        case backchannelTokenDeliveryModes = "backchannel_token_delivery_modes_supported"
    }

    /// Creates metadata from explicit endpoints, for providers without discovery.
    public init(
        issuer: String,
        authorizationEndpoint: URL? = nil,
        tokenEndpoint: URL? = nil,
        userInfoEndpoint: URL? = nil,
        revocationEndpoint: URL? = nil,
        deviceAuthorizationEndpoint: URL? = nil,
        jwksURI: URL? = nil,
        endSessionEndpoint: URL? = nil,
        grantTypesSupported: [String]? = nil,
        idTokenSigningAlgorithms: [String]? = nil,
        tokenEndpointAuthMethods: [String]? = nil,
        scopesSupported: [String]? = nil,
        pushedAuthorizationRequestEndpoint: URL? = nil,
        requirePushedAuthorizationRequests: Bool? = nil,
        backchannelAuthenticationEndpoint: URL? = nil,
        backchannelTokenDeliveryModes: [String]? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userInfoEndpoint = userInfoEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.jwksURI = jwksURI
        self.endSessionEndpoint = endSessionEndpoint
        self.grantTypesSupported = grantTypesSupported
        self.idTokenSigningAlgorithms = idTokenSigningAlgorithms
        self.tokenEndpointAuthMethods = tokenEndpointAuthMethods
        self.scopesSupported = scopesSupported
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.backchannelAuthenticationEndpoint = backchannelAuthenticationEndpoint
        self.backchannelTokenDeliveryModes = backchannelTokenDeliveryModes
    }

    /// These metadata with every non-`nil` override applied.
    func applying(_ overrides: EndpointOverrides) -> ProviderMetadata {
        var merged = self
        merged.authorizationEndpoint = overrides.authorization ?? authorizationEndpoint
        merged.tokenEndpoint = overrides.token ?? tokenEndpoint
        merged.userInfoEndpoint = overrides.userInfo ?? userInfoEndpoint
        merged.revocationEndpoint = overrides.revocation ?? revocationEndpoint
        merged.deviceAuthorizationEndpoint = overrides.deviceAuthorization ?? deviceAuthorizationEndpoint
        merged.jwksURI = overrides.jwks ?? jwksURI
        merged.endSessionEndpoint = overrides.endSession ?? endSessionEndpoint
        merged.pushedAuthorizationRequestEndpoint = overrides.pushedAuthorization ?? pushedAuthorizationRequestEndpoint
        merged.backchannelAuthenticationEndpoint =
            overrides.backchannelAuthentication ?? backchannelAuthenticationEndpoint
        return merged
    }

    /// The `endpoint`, or an error that says which one is missing and how to supply it (and carries it as
    /// ``SessionKitError/missingEndpoint``).
    ///
    /// Every endpoint, from discovery or an override, must be `https` (plain `http` only to a loopback
    /// host), like the issuer: a token must never travel in the clear because a document said so.
    func endpoint(_ endpoint: ProviderEndpoint) throws(SessionKitError) -> URL {
        guard let url = self[keyPath: endpoint.keyPath] else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the provider's discovery document lists no \(endpoint.name) endpoint; "
                    + "set EndpointOverrides.\(endpoint) to its URL",
                missingEndpoint: endpoint
            )
        }
        try ProviderConfiguration.checkSecure(url, role: "\(endpoint.name) endpoint")
        return url
    }
}
