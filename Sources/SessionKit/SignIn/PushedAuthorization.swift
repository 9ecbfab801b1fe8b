/// When a browser sign-in pushes its authorization parameters to the provider first (Pushed Authorization Requests,
/// RFC 9126): ``ProviderConfiguration/pushedAuthorization``.
///
/// A pushed sign-in posts what the browser would otherwise carry (the redirect URI, scope, `state`, `nonce`, the PKCE
/// challenge) to the provider's `pushed_authorization_request_endpoint` over the back channel, authenticated as at
/// the token endpoint and with a DPoP proof when ``ProviderConfiguration/dpop`` is set; the browser then carries only
/// `client_id` and the one-use, short-lived `request_uri` the provider answered. Nothing else changes: the callback
/// and the code exchange are those of every sign-in.
///
/// ```swift
/// var configuration = try ProviderConfiguration(issuer: issuer, clientID: "my-app")
/// configuration.pushedAuthorization = .always      // push even where the provider does not require it
/// ```
public struct PushedAuthorization: Hashable, Sendable, CustomStringConvertible {
    enum Storage: String, Hashable, Sendable {
        case whenRequired, always
    }

    let storage: Storage

    /// Push only when the provider's discovery document says `require_pushed_authorization_requests: true` (the
    /// default); otherwise the parameters travel in the authorization URL.
    public static let whenRequired = PushedAuthorization(storage: .whenRequired)
    /// Push on every browser sign-in. The provider must publish a `pushed_authorization_request_endpoint` (or
    /// ``EndpointOverrides/pushedAuthorization`` must name one); without it the sign-in fails with
    /// ``SessionKitError/Code/invalidConfiguration`` before anything is sent.
    public static let always = PushedAuthorization(storage: .always)

    /// `whenRequired` or `always`.
    public var description: String { storage.rawValue }
}
