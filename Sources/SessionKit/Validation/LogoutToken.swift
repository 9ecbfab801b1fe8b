import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A validated OpenID Connect Back-Channel Logout 1.0 logout token: the provider's word that a user's session
/// (``sessionID``), or every session of a user (``subject``), has ended.
///
/// Obtain one only from ``ProviderClient/validateLogoutToken(_:maxAge:)``, which checks the signature and every
/// claim first; a back end then ends its sessions of that `sid` or `sub`, and refuses the token's ``jwtID`` if
/// it comes again.
public struct LogoutToken: Sendable, Equatable {
    /// `sub`: the user whose sessions ended, when the provider names one.
    public let subject: String?
    /// `sid`: the provider's sign-on session that ended, when the provider names one.
    public let sessionID: String?
    /// `jti`: unique per token; a receiver keeps it until ``expiresAt`` to refuse replays.
    public let jwtID: String
    /// `iat`.
    public let issuedAt: Date
    /// Until when the token could be replayed: its `exp`, or `iat` plus the accepted age when it has none.
    public let expiresAt: Date

    /// The member of `events` that makes a JWT a logout token.
    public static let event = "http://schemas.openid.net/event/backchannel-logout"
}

extension ProviderClient {
    /// Validates a logout token sent to a back-channel logout endpoint (OpenID Connect Back-Channel Logout 1.0
    /// §2.6): the signature with the provider's JWKS (or the client secret for HS256), `iss` is the issuer,
    /// `aud` contains the client id, `iat` is present and at most `maxAge` seconds old (and not in the future
    /// beyond the leeway), `exp` if present is not past, `events` holds the back-channel logout event as an
    /// object, `sub` or `sid` is present, `jti` is present, there is no `nonce`, and a `typ` header, if any, is
    /// `logout+jwt`.
    ///
    /// Replays are the caller's to refuse: keep ``LogoutToken/jwtID`` until ``LogoutToken/expiresAt``.
    ///
    /// Anyone can post a logout token, so the claims are checked before anything is fetched, and a token that names a
    /// key the provider's key set lacks makes this client fetch the key set at most once every 30 seconds, however
    /// many such tokens come.
    ///
    /// - Throws: ``SessionKitError/Code/validationFailed`` naming the failed ``ValidationCheck``; a retryable
    ///   ``SessionKitError`` when the provider's keys could not be fetched, or when the token names an unknown key
    ///   while a refetch would come too soon after the last one (the provider sends the token again later).
    nonisolated(nonsending) public func validateLogoutToken(_ token: Secret, maxAge: TimeInterval = 300)
        async throws(SessionKitError) -> LogoutToken
    {
        let jwt: JWT
        do {
            jwt = try JWT(decoding: token.unsafeRawValue)
        } catch {
            throw Self.logoutFailure(
                .malformedIDToken, "the logout token is not a well-formed JWT (\(error.description))")
        }
        if let type = jwt.header.type,
            type.lowercased() != "logout+jwt" && type.lowercased() != "application/logout+jwt"
        {
            throw Self.logoutFailure(.logoutToken, "the token is typed '\(type)', not logout+jwt")
        }
        // The claims first: they cost no request, and a token that fails them never makes this client fetch keys.
        let token = try Self.checkLogoutClaims(
            jwt, issuer: configuration.issuer.absoluteString, clientID: configuration.clientID, now: providerNow,
            leeway: configuration.leeway, maxAge: maxAge)
        try await idTokenValidator().verifySignature(jwt, named: "logout token", presentedBy: .anyone)
        return token
    }

    /// The claim checks of ``validateLogoutToken(_:maxAge:)``, after the signature.
    static func checkLogoutClaims(
        _ jwt: JWT, issuer: String, clientID: String, now: Date, leeway: TimeInterval, maxAge: TimeInterval
    ) throws(SessionKitError) -> LogoutToken {
        let issuedAt = try checkPushedTokenClaims(
            jwt, named: "the logout token", issuer: issuer, audience: clientID,
            audienceName: "the client id '\(clientID)'",
            now: now, leeway: leeway, maxAge: maxAge, failure: logoutFailure)
        guard case .object(let events)? = jwt.claims["events"], case .object? = events[LogoutToken.event] else {
            throw logoutFailure(.logoutToken, "the token's events claim does not hold the back-channel logout event")
        }
        guard jwt.nonce == nil, jwt.claims["nonce"] == nil else {
            throw logoutFailure(.logoutToken, "the logout token carries a nonce, which logout tokens must not")
        }
        let subject = jwt.subject.flatMap { $0.isEmpty ? nil : $0 }
        let sessionID = jwt.sessionID.flatMap { $0.isEmpty ? nil : $0 }
        guard subject != nil || sessionID != nil else {
            throw logoutFailure(.logoutToken, "the logout token names neither a user (sub) nor a session (sid)")
        }
        guard let jwtID = jwt.identifier, !jwtID.isEmpty else {
            throw logoutFailure(.logoutToken, "the logout token has no jti, so its replay could not be refused")
        }
        return LogoutToken(
            subject: subject, sessionID: sessionID, jwtID: jwtID, issuedAt: issuedAt,
            expiresAt: jwt.expiresAt ?? issuedAt.addingTimeInterval(maxAge + leeway))
    }

    static func logoutFailure(_ check: ValidationCheck, _ message: String) -> SessionKitError {
        SessionKitError(code: .validationFailed, message: message + "; no session was ended", failedCheck: check)
    }
}
