#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ProviderClient {
    /// The checks every token the provider pushes to a receiver shares (a logout token, a security event token):
    /// `iss` is `issuer`, `aud` contains `audience`, `iat` is present and at most `maxAge` seconds old (and not in
    /// the future beyond the leeway), and `exp`, if present, is not past. Returns `iat`.
    ///
    /// - Parameters:
    ///   - name: What the token is called in a message ("the logout token").
    ///   - audienceName: What the audience is called in a message ("the client id 'app'").
    ///   - failure: Makes the error for a failed check and its message.
    static func checkPushedTokenClaims(
        _ jwt: JWT, named name: String, issuer: String, audience: String, audienceName: String, now: Date,
        leeway: TimeInterval, maxAge: TimeInterval, failure: (ValidationCheck, String) -> SessionKitError
    ) throws(SessionKitError) -> Date {
        guard jwt.issuer == issuer else {
            throw failure(.issuer, "\(name)'s issuer '\(jwt.issuer ?? "none")' is not '\(issuer)'")
        }
        guard jwt.audience.contains(audience) else {
            throw failure(.audience, "\(name)'s audience does not contain \(audienceName)")
        }
        guard let issuedAt = jwt.issuedAt else { throw failure(.issuedAt, "\(name) has no iat") }
        guard issuedAt <= now.addingTimeInterval(leeway), issuedAt >= now.addingTimeInterval(-maxAge - leeway) else {
            throw failure(
                .issuedAt,
                "\(name) was issued at \(issuedAt.formatted(.iso8601)), outside the accepted window of "
                    + "\(Int(maxAge)) s before now; check the clocks")
        }
        if let expiresAt = jwt.expiresAt, expiresAt <= now.addingTimeInterval(-leeway) {
            throw failure(.expiry, "\(name) expired at \(expiresAt.formatted(.iso8601))")
        }
        return issuedAt
    }
}
