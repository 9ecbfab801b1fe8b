#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One of the provider's endpoints, by the name ``EndpointOverrides`` gives it.
///
/// ``SessionKitError/missingEndpoint`` carries it when the discovery document lists the endpoint and no override
/// supplies it, so that a program can tell its own users how to supply one (a setting, a command-line flag) rather
/// than show SessionKit's advice, which names the Swift API.
public struct ProviderEndpoint: Hashable, Sendable, CustomStringConvertible {
    enum Storage: String, Hashable, Sendable {
        case authorization, token, userInfo, revocation, deviceAuthorization, jwks, endSession, pushedAuthorization
        case backchannelAuthentication
    }

    let storage: Storage

    /// The authorization endpoint (``EndpointOverrides/authorization``).
    public static let authorization = ProviderEndpoint(storage: .authorization)
    /// The token endpoint (``EndpointOverrides/token``).
    public static let token = ProviderEndpoint(storage: .token)
    /// The userinfo endpoint (``EndpointOverrides/userInfo``).
    public static let userInfo = ProviderEndpoint(storage: .userInfo)
    /// The RFC 7009 revocation endpoint (``EndpointOverrides/revocation``).
    public static let revocation = ProviderEndpoint(storage: .revocation)
    /// The RFC 8628 device-authorization endpoint (``EndpointOverrides/deviceAuthorization``).
    public static let deviceAuthorization = ProviderEndpoint(storage: .deviceAuthorization)
    /// The JWKS document (``EndpointOverrides/jwks``).
    public static let jwks = ProviderEndpoint(storage: .jwks)
    /// The end-session endpoint (``EndpointOverrides/endSession``).
    public static let endSession = ProviderEndpoint(storage: .endSession)
    /// The RFC 9126 pushed authorization request endpoint (``EndpointOverrides/pushedAuthorization``).
    public static let pushedAuthorization = ProviderEndpoint(storage: .pushedAuthorization)
    /// The OpenID CIBA backchannel authentication endpoint (``EndpointOverrides/backchannelAuthentication``).
    public static let backchannelAuthentication = ProviderEndpoint(storage: .backchannelAuthentication)

    /// The name of the ``EndpointOverrides`` property that supplies it, such as `deviceAuthorization`.
    public var description: String { storage.rawValue }

    /// Its name in a sentence: `authorization`, `token`, `userinfo`, `revocation`, `device-authorization`, `JWKS`,
    /// `end-session`, `pushed authorization request` or `backchannel authentication`.
    public var name: String {
        switch storage {
        case .authorization: "authorization"
        case .token: "token"
        case .userInfo: "userinfo"
        case .revocation: "revocation"
        case .deviceAuthorization: "device-authorization"
        case .jwks: "JWKS"
        case .endSession: "end-session"
        case .pushedAuthorization: "pushed authorization request"
        case .backchannelAuthentication: "backchannel authentication"
        }
    }

    /// Where discovery, merged with the overrides, has it.
    var keyPath: KeyPath<ProviderMetadata, URL?> {
        switch storage {
        case .authorization: \.authorizationEndpoint
        case .token: \.tokenEndpoint
        case .userInfo: \.userInfoEndpoint
        case .revocation: \.revocationEndpoint
        case .deviceAuthorization: \.deviceAuthorizationEndpoint
        case .jwks: \.jwksURI
        case .endSession: \.endSessionEndpoint
        case .pushedAuthorization: \.pushedAuthorizationRequestEndpoint
        case .backchannelAuthentication: \.backchannelAuthenticationEndpoint
        }
    }
}
