import Foundation
import SessionKitSupport
import Testing

@testable import SessionKit

/// The claim checks of a Security Event Token (RFC 8417, SSF 1.0), before any signature: what a receiver acts on
/// and what it refuses, with the check that failed.
@Suite("Security event token claims")
struct SecurityEventTokenTests {
    static let issuer = "https://tenant.example/"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let sessionRevoked = SecurityEvent.sessionRevoked

    /// A JWT with these claims (the signature is not looked at here).
    static func jwt(_ claims: [String: Any]) throws -> JWT {
        let header = Base64URL.encode(Data(#"{"alg":"RS256","typ":"secevent+jwt"}"#.utf8))
        let payload = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        return try JWT(decoding: "\(header).\(payload).c2ln")
    }

    static func claims(_ changes: [String: Any?] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": issuer, "aud": "client", "iat": Int(now.timeIntervalSince1970) - 10, "jti": "j1",
            "sub_id": ["format": "iss_sub", "iss": issuer, "sub": "auth0|alice"],
            "events": [sessionRevoked: ["event_timestamp": 1]],
        ]
        for (key, value) in changes { claims[key] = value }
        return claims
    }

    static func check(_ claims: [String: Any]) throws -> Result<SecurityEventToken, SessionKitError> {
        let jwt = try jwt(claims)
        return Result { () throws(SessionKitError) in
            try ProviderClient.checkSecurityEventClaims(
                jwt, issuer: issuer, audience: "client", now: now, leeway: 60, maxAge: 300)
        }
    }

    @Test("sub_id iss_sub, a complex user, an event's subject or sub name the user; events are read in order")
    func subjects() throws {
        let token = try Self.check(Self.claims()).get()
        #expect(token.subject == "auth0|alice")
        #expect(token.events.map(\.kind) == [.sessionRevoked])
        #expect(token.endsSessions)
        #expect(token.expiresAt == Date(timeIntervalSince1970: 1_800_000_000 - 10 + 360))

        let complex =
            ["format": "complex", "user": ["format": "iss_sub", "iss": Self.issuer, "sub": "bob"]] as [String: Any]
        #expect(try Self.check(Self.claims(["sub_id": complex])).get().subject == "bob")
        let legacy: [String: Any] = [
            Self.sessionRevoked: ["subject": ["format": "iss_sub", "iss": Self.issuer, "sub": "carol"]]
        ]
        #expect(try Self.check(Self.claims(["sub_id": nil, "events": legacy])).get().subject == "carol")
        #expect(try Self.check(Self.claims(["sub_id": nil, "sub": "dave"])).get().subject == "dave")

        let other = ["https://example.com/other": [String: Any](), SecurityEvent.accountDisabled: [String: Any]()]
        let both = try Self.check(Self.claims(["events": other])).get()
        #expect(both.events.map(\.kind) == [.other, .accountDisabled])
        let unknown = try Self.check(Self.claims(["events": ["https://example.com/other": [String: Any]()]])).get()
        #expect(!unknown.endsSessions)
    }

    /// Claims that are each wrong in one way, and the check that refuses them.
    static var refusals: [([String: Any?], ValidationCheck)] {
        [
            (["iss": "https://other.example/"], ValidationCheck.issuer),
            (["aud": "someone-else"], .audience),
            (["iat": nil], .issuedAt),
            (["iat": 1_800_000_000 - 400], .issuedAt),
            (["iat": 1_800_000_000 + 120], .issuedAt),
            (["exp": 1_800_000_000 - 100], .expiry),
            (["jti": nil], .securityEventToken),
            (["jti": ""], .securityEventToken),
            (["events": nil], .securityEventToken),
            (["events": [String: Any]()], .securityEventToken),
            (["events": [SecurityEvent.sessionRevoked: "revoked"]], .securityEventToken),
            (["sub_id": ["format": "email", "email": "alice@example.com"]], .securityEventToken),
            (["sub_id": ["format": "iss_sub", "iss": "https://other.example/", "sub": "alice"]], .securityEventToken),
        ]
    }

    @Test("each bad claim is refused with its check, and nothing is said to have ended")
    func refused() throws {
        for (change, expected) in Self.refusals {
            switch try Self.check(Self.claims(change)) {
            case .success(let token): Issue.record("accepted \(change): \(token)")
            case .failure(let error):
                #expect(error.failedCheck == expected, "\(change)")
                #expect(error.code == .validationFailed)
                #expect(error.message.contains("no session was ended"))
            }
        }
    }
}
