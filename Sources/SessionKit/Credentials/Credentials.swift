public import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The tokens a provider issued at sign-in or renewal, as SessionKit stores them.
///
/// The expiry is absolute: a token response's relative `expires_in` becomes ``expiresAt`` at the
/// moment of receipt, so stored credentials stay correct across restarts. `description` and
/// `debugDescription` show which tokens are present and when they expire, never a token value.
public struct Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access token, sent to APIs as `Authorization: <tokenType> <accessToken>`.
    public var accessToken: Secret
    /// The access token's type, normally `Bearer`.
    public var tokenType: String
    /// The OpenID Connect ID token, when `openid` was in the scope.
    public var idToken: Secret?
    /// The refresh token, when `offline_access` was granted.
    public var refreshToken: Secret?
    /// When the access token expires; `nil` when the provider did not say.
    public var expiresAt: Date?
    /// The granted scope, space-separated, as the provider returned it.
    public var scope: String?
    /// The RFC 8693 `issued_token_type`, for credentials from a token exchange.
    public var issuedTokenType: String?
    /// When the credentials were received.
    public var receivedAt: Date
    /// Any other members of the token response, kept for later steps. They may be sensitive, so
    /// ``description`` lists their names only.
    public var additionalParameters: [String: JSONValue]

    /// Creates credentials.
    public init(
        accessToken: Secret,
        tokenType: String = "Bearer",
        idToken: Secret? = nil,
        refreshToken: Secret? = nil,
        expiresAt: Date?,
        scope: String? = nil,
        issuedTokenType: String? = nil,
        receivedAt: Date = Date(),
        additionalParameters: [String: JSONValue] = [:]
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.issuedTokenType = issuedTokenType
        self.receivedAt = receivedAt
        self.additionalParameters = additionalParameters
    }

    /// The granted scopes, split.
    public var scopes: [String] { scope?.split(separator: " ").map(String.init) ?? [] }

    /// Whether a refresh token is present, so the credentials can be renewed without the user.
    public var canRenew: Bool { refreshToken.map { !$0.isEmpty } ?? false }

    /// Whether the access token is still valid for at least `minTTL` seconds at `now`.
    /// Credentials whose expiry is unknown count as valid: the provider will reject them when they are not.
    public func isValid(minTTL: TimeInterval = 0, now: Date = Date()) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) > minTTL
    }

    /// Whether these credentials serve a call that needs an access token valid for `minTTL` seconds, with
    /// `scope` when one is named.
    ///
    /// When `minTTL` is as long as the provider's whole token lifetime, no renewal could satisfy it; a token
    /// as fresh as the provider gives (less than a tenth of its lifetime gone) serves instead, so that callers
    /// that ask for more renew once, not on every call.
    func satisfies(minTTL: TimeInterval, scope: String?, now: Date) -> Bool {
        if let scope, scope != self.scope { return false }
        guard let expiresAt else { return true }
        let remaining = expiresAt.timeIntervalSince(now)
        if remaining > minTTL { return true }
        let lifetime = expiresAt.timeIntervalSince(receivedAt)
        return lifetime <= minTTL && remaining > 0 && remaining >= lifetime * 0.9
    }

    /// Whether the provider's tokens live shorter than `minTTL` seconds, judged by these credentials.
    public func livesShorter(than minTTL: TimeInterval) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(receivedAt) <= minTTL
    }

    /// The ID token's claims, decoded without verification (the provider client verified it before it
    /// was stored); `nil` when there is no ID token or it cannot be decoded.
    public var idTokenClaims: JWT? {
        idToken.flatMap { try? JWT(decoding: $0.unsafeRawValue) }
    }

    /// Which tokens are present, the scope and the expiry; never a token value.
    public var description: String {
        var parts = ["access_token: <redacted>", "token_type: \(tokenType)"]
        parts.append("id_token: \(idToken == nil ? "none" : "<redacted>")")
        parts.append("refresh_token: \(refreshToken == nil ? "none" : "<redacted>")")
        parts.append("expires_at: \(expiresAt.map { $0.formatted(.iso8601) } ?? "unknown")")
        if let scope { parts.append("scope: \(scope)") }
        if !additionalParameters.isEmpty {
            parts.append("other: [\(additionalParameters.keys.sorted().joined(separator: ", "))]")
        }
        return "Credentials(\(parts.joined(separator: ", ")))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror of the non-secret fields only, so `dump` and reflection cannot reach a token or an
    /// additional parameter's value.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "tokenType": tokenType, "expiresAt": expiresAt as Any, "scope": scope as Any,
                "hasRefreshToken": canRenew, "hasIDToken": idToken != nil,
                "additionalParameters": additionalParameters.keys.sorted(),
            ],
            displayStyle: .struct
        )
    }
}
