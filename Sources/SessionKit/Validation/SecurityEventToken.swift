import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A validated Security Event Token (RFC 8417) pushed by the provider as a Shared Signals transmitter (OpenID
/// Shared Signals Framework 1.0, push delivery RFC 8935): the provider's word that something happened to a user
/// that a relying party must act on at once, such as a revoked session (CAEP) or a disabled account (RISC).
///
/// Obtain one only from ``ProviderClient/validateSecurityEventToken(_:audience:maxAge:)``, which checks the
/// signature and every claim first; a receiver then acts on ``events`` for ``subject`` and refuses the token's
/// ``jwtID`` if it comes again.
public struct SecurityEventToken: Sendable, Equatable {
    /// The user the events are about: the `sub` of the subject identifier (`sub_id` in the `iss_sub` format, or
    /// the user of a `complex` one), or the token's own `sub`.
    public let subject: String
    /// The events the token carries, in the order of their type URIs.
    public let events: [SecurityEvent]
    /// `jti`: unique per token; a receiver keeps it until ``expiresAt`` to refuse replays.
    public let jwtID: String
    /// `iat`.
    public let issuedAt: Date
    /// Until when the token could be replayed: its `iat` plus the accepted age.
    public let expiresAt: Date

    /// Whether any of ``events`` asks for the subject's sessions to end.
    public var endsSessions: Bool { events.contains { $0.kind.endsSessions } }
}

/// One member of a Security Event Token's `events` claim.
public struct SecurityEvent: Sendable, Equatable {
    /// What the event means to a relying party.
    public enum Kind: Sendable, Equatable {
        /// CAEP `session-revoked`: the user's session at the provider ended; end theirs here.
        case sessionRevoked
        /// CAEP `credential-change`: a credential of the user's changed (a password reset, a key removed); end
        /// their sessions and revoke their refresh tokens, which the old credential obtained.
        case credentialChange
        /// RISC `account-disabled`: the account may not be used any more.
        case accountDisabled
        /// RISC `account-purged`: the account is gone.
        case accountPurged
        /// Any other event type: acknowledged, and nothing is done.
        case other
    }

    /// The CAEP `session-revoked` event type.
    public static let sessionRevoked = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"
    /// The CAEP `credential-change` event type.
    public static let credentialChange = "https://schemas.openid.net/secevent/caep/event-type/credential-change"
    /// The RISC `account-disabled` event type.
    public static let accountDisabled = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
    /// The RISC `account-purged` event type.
    public static let accountPurged = "https://schemas.openid.net/secevent/risc/event-type/account-purged"

    /// The event type URI.
    public let type: String
    /// What the type means here.
    public var kind: Kind {
        switch type {
        case Self.sessionRevoked: .sessionRevoked
        case Self.credentialChange: .credentialChange
        case Self.accountDisabled: .accountDisabled
        case Self.accountPurged: .accountPurged
        default: .other
        }
    }
}

extension SecurityEvent.Kind {
    /// Whether a receiver ends the subject's sessions (and revokes their refresh tokens) for this event.
    public var endsSessions: Bool { self != .other }
}

extension ProviderClient {
    /// Validates a Security Event Token pushed to a receiver (RFC 8417 §2, RFC 8935 §2, OpenID Shared Signals
    /// Framework 1.0): the signature with the provider's JWKS (or the client secret for HS256), `iss` is the
    /// issuer, `aud` contains `audience` (the client id unless told), `iat` is present and at most `maxAge`
    /// seconds old (and not in the future beyond the leeway), `exp` if present is not past, `jti` is present,
    /// `events` is an object of one or more objects, and a `typ` header, if any, is `secevent+jwt`. The subject is
    /// the `sub_id` claim (format `iss_sub` with this issuer, or `complex` with such a `user`), an event's own
    /// `subject` (earlier CAEP drafts), or `sub`.
    ///
    /// Replays are the caller's to refuse: keep ``SecurityEventToken/jwtID`` until
    /// ``SecurityEventToken/expiresAt``. As with logout tokens, the claims are checked before anything is fetched.
    ///
    /// - Throws: ``SessionKitError/Code/validationFailed`` naming the failed ``ValidationCheck``; a retryable
    ///   ``SessionKitError`` when the provider's keys could not be fetched.
    nonisolated(nonsending) public func validateSecurityEventToken(
        _ token: Secret, audience: String? = nil, maxAge: TimeInterval = 300
    ) async throws(SessionKitError) -> SecurityEventToken {
        let jwt: JWT
        do {
            jwt = try JWT(decoding: token.unsafeRawValue)
        } catch {
            throw Self.eventFailure(.malformedIDToken, "the token is not a well-formed JWT (\(error.description))")
        }
        if let type = jwt.header.type?.lowercased(), type != "secevent+jwt", type != "application/secevent+jwt" {
            throw Self.eventFailure(.securityEventToken, "the token is typed '\(type)', not secevent+jwt")
        }
        let token = try Self.checkSecurityEventClaims(
            jwt, issuer: configuration.issuer.absoluteString, audience: audience ?? configuration.clientID,
            now: providerNow, leeway: configuration.leeway, maxAge: maxAge)
        try await idTokenValidator().verifySignature(jwt, named: "security event token", presentedBy: .anyone)
        return token
    }

    /// The claim checks of ``validateSecurityEventToken(_:audience:maxAge:)``, before the signature.
    static func checkSecurityEventClaims(
        _ jwt: JWT, issuer: String, audience: String, now: Date, leeway: TimeInterval, maxAge: TimeInterval
    ) throws(SessionKitError) -> SecurityEventToken {
        let issuedAt = try checkPushedTokenClaims(
            jwt, named: "the token", issuer: issuer, audience: audience, audienceName: "'\(audience)'", now: now,
            leeway: leeway, maxAge: maxAge, failure: eventFailure)
        guard let jwtID = jwt.identifier, !jwtID.isEmpty else {
            throw eventFailure(.securityEventToken, "the token has no jti, so its replay could not be refused")
        }
        guard case .object(let members)? = jwt.claims["events"], !members.isEmpty,
            members.values.allSatisfy({ if case .object = $0 { true } else { false } })
        else {
            throw eventFailure(.securityEventToken, "the token's events claim is not an object of event objects")
        }
        guard let subject = Self.eventSubject(jwt, events: members, issuer: issuer) else {
            throw eventFailure(
                .securityEventToken,
                "the token names no user this receiver can act on (sub_id in the iss_sub format with this issuer, "
                    + "a complex one with such a user, or sub)")
        }
        return SecurityEventToken(
            subject: subject, events: members.keys.sorted().map { SecurityEvent(type: $0) }, jwtID: jwtID,
            issuedAt: issuedAt, expiresAt: issuedAt.addingTimeInterval(maxAge + leeway))
    }

    /// The user a token is about: `sub_id`, else the first event's `subject`, else `sub`.
    private static func eventSubject(_ jwt: JWT, events: [String: JSONValue], issuer: String) -> String? {
        if let identifier = jwt.claims["sub_id"] { return userSubject(identifier, issuer: issuer) }
        for type in events.keys.sorted() {
            if case .object(let event)? = events[type], let identifier = event["subject"] {
                return userSubject(identifier, issuer: issuer)
            }
        }
        return jwt.subject.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The `sub` of a subject identifier (RFC 9493) in the `iss_sub` format with this issuer, or of the `user`
    /// of a `complex` one; `nil` for any other.
    private static func userSubject(_ identifier: JSONValue, issuer: String) -> String? {
        guard case .object(let fields) = identifier, case .string(let format)? = fields["format"] else { return nil }
        switch format {
        case "iss_sub":
            guard case .string(let subjectIssuer)? = fields["iss"], subjectIssuer == issuer,
                case .string(let subject)? = fields["sub"], !subject.isEmpty
            else { return nil }
            return subject
        case "complex":
            return fields["user"].flatMap { userSubject($0, issuer: issuer) }
        default:
            return nil
        }
    }

    static func eventFailure(_ check: ValidationCheck, _ message: String) -> SessionKitError {
        SessionKitError(
            code: .validationFailed, message: "security event token refused: " + message + "; no session was ended",
            failedCheck: check)
    }
}
