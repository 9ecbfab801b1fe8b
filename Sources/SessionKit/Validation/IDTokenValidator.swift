import Crypto
import JWTKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks an ID token per OpenID Connect Core §3.1.3.7 and §12.2, with issuer and audience always
/// required. Every failure names its ``ValidationCheck``.
struct IDTokenValidator: Sendable {
    /// What the token must match.
    struct Expectations: Sendable {
        var issuer: String
        var clientID: String
        var nonce: String?
        var maxAge: TimeInterval?
        var subject: String?
        var now: Date
        var leeway: TimeInterval
    }

    /// Asymmetric algorithms accepted with keys from the provider's JWKS.
    static let asymmetricAlgorithms: Set<String> = [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384",
    ]

    let keys: JWKSCache
    let clientSecret: Secret?

    /// Validates `token` and returns its decoded claims.
    ///
    /// A token these keys verified before with the same expectations skips parsing and the signature
    /// check; its claims are checked again against `expected.now` (see ``IDTokenCache``).
    func validate(_ token: Secret, expecting expected: Expectations) async throws(SessionKitError) -> JWT {
        let key = IDTokenCache.Key(token, expected)
        if let jwt = try Self.cachedClaims(in: keys.validated, for: key, expected) { return jwt }
        let jwt: JWT
        do {
            jwt = try JWT(decoding: token.unsafeRawValue)
        } catch {
            throw Self.failure(.malformedIDToken, "the ID token is not a well-formed JWT (\(error.description))")
        }
        try await verifySignature(jwt)
        try Self.checkClaims(jwt, expected)
        keys.validated.insert(jwt, for: key)
        return jwt
    }

    /// The claims of a token `cache` holds, checked again against `expected`; `nil` when not cached.
    static func cachedClaims(in cache: IDTokenCache, for key: IDTokenCache.Key, _ expected: Expectations)
        throws(SessionKitError) -> JWT?
    {
        guard let jwt = cache.claims(for: key) else { return nil }
        do {
            try checkClaims(jwt, expected)
        } catch {
            cache.remove(key)
            throw error
        }
        return jwt
    }

    /// Verifies `jwt`'s signature with the provider's key for its `kid` (or the client secret for HS256);
    /// `name` says which token it is in the error, and `presenter` who sent it (see ``JWKSCache``).
    func verifySignature(
        _ jwt: JWT, named name: String = "ID token", presentedBy presenter: JWKSCache.Presenter = .provider
    ) async throws(SessionKitError) {
        let algorithm = jwt.header.algorithm
        let key: any JWTAlgorithm
        if algorithm == "HS256" {
            guard let clientSecret else {
                throw Self.failure(
                    .algorithm,
                    "the \(name) is signed with HS256, which needs a client secret this client does not have")
            }
            key = try await Self.hmacKey(clientSecret)
        } else if Self.asymmetricAlgorithms.contains(algorithm) {
            key = try await keys.key(for: jwt.header.keyID, algorithm: algorithm, presentedBy: presenter)
        } else {
            throw Self.failure(.algorithm, "the \(name)'s algorithm '\(algorithm)' is not accepted")
        }
        guard key.name == algorithm else {
            throw Self.failure(.algorithm, "the \(name) says \(algorithm) but its key is for \(key.name)")
        }
        let valid = (try? key.verify(jwt.signature, signs: jwt.signingInput)) ?? false
        guard valid else {
            throw Self.failure(.signature, "the \(name)'s signature does not verify with the provider's key")
        }
    }

    /// The shortest client secret accepted as an HS256 key: the hash's output size (RFC 7518 §3.2).
    static let minimumSecretLength = 32

    private static func hmacKey(_ secret: Secret) async throws(SessionKitError) -> any JWTAlgorithm {
        // jwt-kit traps on shorter keys; refuse them with an error instead.
        guard secret.unsafeRawValue.utf8.count >= minimumSecretLength else {
            throw failure(
                .algorithm,
                "the ID token is signed with HS256 but the client secret is shorter than \(minimumSecretLength) bytes, "
                    + "too short to be an HS256 key (RFC 7518 §3.2); use RS256 or a longer secret"
            )
        }
        let collection = JWTKeyCollection()
        await collection.add(hmac: HMACKey(from: secret.unsafeRawValue), digestAlgorithm: .sha256, kid: "client-secret")
        do {
            return try await collection.getKey(for: "client-secret")
        } catch {
            throw failure(.algorithm, "the client secret cannot be used as an HS256 key")
        }
    }

    static func checkClaims(_ jwt: JWT, _ expected: Expectations) throws(SessionKitError) {
        let earliest = expected.now.addingTimeInterval(-expected.leeway)
        let latest = expected.now.addingTimeInterval(expected.leeway)
        guard jwt.issuer == expected.issuer else {
            throw failure(.issuer, "the ID token's issuer '\(jwt.issuer ?? "none")' is not '\(expected.issuer)'")
        }
        guard let subject = jwt.subject, !subject.isEmpty else {
            throw failure(.subject, "the ID token has no subject")
        }
        if let expectedSubject = expected.subject, subject != expectedSubject {
            throw failure(.subject, "the renewed ID token names a different user than the session's")
        }
        guard jwt.audience.contains(expected.clientID) else {
            throw failure(.audience, "the ID token's audience does not contain the client id '\(expected.clientID)'")
        }
        if jwt.audience.count > 1 || jwt.authorizedParty != nil, jwt.authorizedParty != expected.clientID {
            throw failure(.authorizedParty, "the ID token's authorized party (azp) is not the client id")
        }
        guard let expiresAt = jwt.expiresAt else { throw failure(.expiry, "the ID token has no exp") }
        guard expiresAt > earliest else {
            throw failure(.expiry, "the ID token expired at \(expiresAt.formatted(.iso8601))")
        }
        guard let issuedAt = jwt.issuedAt else { throw failure(.issuedAt, "the ID token has no iat") }
        guard issuedAt <= latest else {
            throw failure(
                .issuedAt, "the ID token was issued in the future (\(issuedAt.formatted(.iso8601))); check the clock")
        }
        if let notBefore = jwt.notBefore, notBefore > latest {
            throw failure(.notBefore, "the ID token is not valid before \(notBefore.formatted(.iso8601))")
        }
        if let nonce = expected.nonce {
            guard let returned = jwt.nonce, ConstantTime.equals(returned, nonce) else {
                throw failure(.nonce, "the ID token's nonce does not match the one sent with the request")
            }
        }
        if let maxAge = expected.maxAge {
            guard let authTime = jwt.authenticationTime else {
                throw failure(.authenticationTime, "max_age was requested but the ID token has no auth_time")
            }
            guard authTime.addingTimeInterval(maxAge) >= earliest else {
                throw failure(.authenticationTime, "the user authenticated longer ago than max_age allows")
            }
        }
    }

    static func failure(_ check: ValidationCheck, _ message: String) -> SessionKitError {
        SessionKitError(code: .validationFailed, message: message + "; nothing was stored", failedCheck: check)
    }
}
