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
    /// Whether the browser's URL repeats `response_type`, `scope`, `redirect_uri` and any `prompt` beside the
    /// `request_uri`.
    public private(set) var repeatsOpenIDParameters = false

    /// Push only when the provider's discovery document says `require_pushed_authorization_requests: true` (the
    /// default); otherwise the parameters travel in the authorization URL.
    public static let whenRequired = PushedAuthorization(storage: .whenRequired)
    /// Push on every browser sign-in. The provider must publish a `pushed_authorization_request_endpoint` (or
    /// ``EndpointOverrides/pushedAuthorization`` must name one); without it the sign-in fails with
    /// ``SessionKitError/Code/invalidConfiguration`` before anything is sent.
    public static let always = PushedAuthorization(storage: .always)

    /// The same choice, with the browser's URL also carrying `response_type`, `scope`, `redirect_uri` and the
    /// `prompt` if there is one (their pushed values) beside `client_id` and `request_uri`.
    ///
    /// RFC 9126 needs only `client_id` and `request_uri`, and most providers take nothing more. OpenID Connect Core
    /// (section 6.2) asks for `response_type` and a `scope` with `openid` in the URL even when a request object holds
    /// them, and RFC 9101 (section 5) lets a client repeat them for that reason; a provider that checks the browser's
    /// request as an OpenID one before it resolves the `request_uri` refuses it without them (idpyoidc 5.0.0 answers
    /// `invalid_request` "Missing required attribute 'response_type'", and, for a `scope` with `offline_access`
    /// without `prompt=consent` in the URL, "consent in prompt"). The pushed values still decide; nothing secret is
    /// repeated (not `state`, `nonce` or the PKCE challenge).
    ///
    /// ```swift
    /// configuration.pushedAuthorization = PushedAuthorization.always.repeatingOpenIDParameters()
    /// ```
    public func repeatingOpenIDParameters() -> PushedAuthorization {
        var copy = self
        copy.repeatsOpenIDParameters = true
        return copy
    }

    /// `whenRequired` or `always`, and `repeating OpenID parameters` when it does.
    public var description: String {
        storage.rawValue + (repeatsOpenIDParameters ? ", repeating OpenID parameters" : "")
    }
}
