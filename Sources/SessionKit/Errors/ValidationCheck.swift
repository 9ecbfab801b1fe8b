/// A check on a token response or an ID token (OpenID Connect Core §3.1.3.7), named so that a failure
/// says exactly which rule the provider's answer broke.
public enum ValidationCheck: String, Sendable, Hashable, CaseIterable {
    /// The ID token is not a well-formed JWT.
    case malformedIDToken
    /// The header's `alg` is `none`, or an algorithm SessionKit does not accept for this client.
    case algorithm
    /// No key in the provider's JWKS matches the token's `kid` and algorithm.
    case unknownKey
    /// The signature does not verify with the provider's key.
    case signature
    /// `iss` is missing or not exactly the configured issuer.
    case issuer
    /// `aud` is missing or does not contain the client id.
    case audience
    /// There are several audiences and `azp` is missing or not the client id.
    case authorizedParty
    /// `sub` is missing, or a renewal's ID token names another user.
    case subject
    /// `exp` is missing or past (beyond the leeway).
    case expiry
    /// `iat` is missing or in the future (beyond the leeway).
    case issuedAt
    /// `nbf` is in the future (beyond the leeway).
    case notBefore
    /// The `nonce` sent with the request is missing from the ID token or differs.
    case nonce
    /// `max_age` was requested and `auth_time` is missing or too old.
    case authenticationTime
    /// The token response's `token_type` is not `Bearer`.
    case tokenType
    /// The token response has no `access_token`.
    case accessToken
    /// The token response's `expires_in` is not a sane number of seconds.
    case expiresIn
    /// The authorization response's `state` does not match the request's.
    case state
    /// A logout token lacks the back-channel logout event, names neither `sub` nor `sid`, carries a `nonce`,
    /// has no `jti`, or is typed as something else (OpenID Connect Back-Channel Logout 1.0 §2.6).
    case logoutToken
    /// A Security Event Token lacks `jti` or an `events` object, names no subject this receiver can act on, or is
    /// typed as something else (RFC 8417, OpenID Shared Signals Framework 1.0).
    case securityEventToken
}
