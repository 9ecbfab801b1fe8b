import Foundation
import SessionKitSupport
import Testing

@testable import SessionKit

/// Builds compact JWTs from JSON text, so each test controls every byte.
private func token(
    header: String = #"{"alg":"RS256","kid":"k1","typ":"JWT"}"#, payload: String, signature: String = "c2ln"
)
    -> String
{
    "\(Base64URL.encode(Data(header.utf8))).\(Base64URL.encode(Data(payload.utf8))).\(signature)"
}

@Suite("JWT decoding")
struct JWTDecodingTests {
    @Test("registered and profile claims are typed")
    func typedClaims() throws {
        let jwt = try JWT(
            decoding: token(
                payload: #"""
                    {"iss":"https://tenant.example/","sub":"auth0|123","aud":["app","api"],"exp":1700000300,
                    "iat":1700000000,"nbf":1699999990,"jti":"id-1","nonce":"n-1","azp":"app","auth_time":1699999900,
                    "name":"Ada Lovelace","nickname":"ada","email":"ada@example.com","email_verified":true,
                    "picture":"https://example.com/ada.png","scope":"openid profile",
                    "https://example.com/roles":["admin","dev"],"count":3,"ratio":0.5}
                    """#
            )
        )
        #expect(jwt.header.algorithm == "RS256")
        #expect(jwt.header.keyID == "k1")
        #expect(jwt.header.type == "JWT")
        #expect(jwt.issuer == "https://tenant.example/")
        #expect(jwt.subject == "auth0|123")
        #expect(jwt.audience == ["app", "api"])
        #expect(jwt.expiresAt == Date(timeIntervalSince1970: 1_700_000_300))
        #expect(jwt.issuedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(jwt.notBefore == Date(timeIntervalSince1970: 1_699_999_990))
        #expect(jwt.identifier == "id-1")
        #expect(jwt.nonce == "n-1")
        #expect(jwt.authorizedParty == "app")
        #expect(jwt.authenticationTime == Date(timeIntervalSince1970: 1_699_999_900))
        #expect(jwt.name == "Ada Lovelace")
        #expect(jwt.nickname == "ada")
        #expect(jwt.email == "ada@example.com")
        #expect(jwt.emailVerified == true)
        #expect(jwt.picture == URL(string: "https://example.com/ada.png"))
        #expect(jwt.scopes == ["openid", "profile"])
        #expect(jwt["https://example.com/roles"].stringArray == ["admin", "dev"])
        #expect(jwt["count"].integer == 3)
        #expect(jwt["ratio"].double == 0.5)
        #expect(jwt["ratio"].integer == nil)
        #expect(jwt["missing"].exists == false)
        #expect(jwt.signature == Data("sig".utf8))
    }

    @Test("a single-string audience reads as one element")
    func singleAudience() throws {
        let jwt = try JWT(decoding: token(payload: #"{"aud":"app"}"#))
        #expect(jwt.audience == ["app"])
    }

    @Test("isExpired honours exp, leeway and a missing exp")
    func expiry() throws {
        let jwt = try JWT(decoding: token(payload: #"{"exp":1000}"#))
        #expect(jwt.isExpired(now: Date(timeIntervalSince1970: 999)) == false)
        #expect(jwt.isExpired(now: Date(timeIntervalSince1970: 1000)) == true)
        #expect(jwt.isExpired(leeway: 30, now: Date(timeIntervalSince1970: 1020)) == false)
        #expect(jwt.isExpired(leeway: 30, now: Date(timeIntervalSince1970: 1031)) == true)
        let noExp = try JWT(decoding: token(payload: #"{"sub":"x"}"#))
        #expect(noExp.isExpired(now: .distantFuture) == false)
    }

    @Test("the signing input is the first two segments")
    func signingInput() throws {
        let compact = token(payload: #"{"sub":"x"}"#)
        let jwt = try JWT(decoding: compact)
        let expected = compact.split(separator: ".").prefix(2).joined(separator: ".")
        #expect(jwt.signingInput == Data(expected.utf8))
    }

    @Test(
        "malformed input names the kind, the part and the reason",
        arguments: [
            ("", JWTDecodingError.Part.token, "empty", JWTDecodingError.Code.segments),
            ("abc", .token, "found 1", .segments),
            ("a.b.c.d.e", .token, "JWE", .segments),
            (".eyJ9.sig", .header, "empty", .encoding),
            ("e30.!!!.sig", .payload, "base64url", .encoding),
            ("bm90IGpzb24.e30.sig", .header, "not valid JSON", .json),
            ("WzFd.e30.sig", .header, "array, not an object", .json),
            ("e30.e30.sig", .header, "'alg' parameter is missing", .member),
            ("eyJhbGciOjF9.e30.sig", .header, "number, not a name", .member),
            ("eyJhbGciOiJSUzI1NiJ9.e30.s=g", .signature, "base64url", .encoding),
            ("eyJhbGciOiJSUzI1NiJ9.eyJleHAiOiJzb29uIn0.sig", .payload, "claim 'exp' is a string", .member),
            ("eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOlsxXX0.sig", .payload, "claim 'aud' is a array", .member),
            ("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOjV9.sig", .payload, "claim 'sub' is a number", .member),
            ("eyJhbGciOiJSUzI1NiJ9.eyJzY29wZSI6M30.sig", .payload, "claim 'scope' is a number", .member),
        ]
    )
    func malformed(input: String, part: JWTDecodingError.Part, reasonFragment: String, code: JWTDecodingError.Code) {
        #expect {
            _ = try JWT(decoding: input)
        } throws: { error in
            guard let error = error as? JWTDecodingError else { return false }
            return error.code == code && error.part == part && error.description.contains(reasonFragment)
        }
    }

    @Test("scope as an array of strings (idpyoidc's ID tokens) is read as the same list as the space-separated form")
    func scopeArray() throws {
        let jwt = try JWT(decoding: token(payload: #"{"sub":"u","scope":["openid","email"]}"#))
        #expect(jwt.scopes == ["openid", "email"])
    }

    @Test("errors and descriptions never contain the token")
    func noTokenInOutput() throws {
        let secretish = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhYmMifQ.c2VjcmV0LXNpZ25hdHVyZQ"
        let jwt = try JWT(decoding: secretish)
        #expect(!jwt.description.contains("c2VjcmV0LXNpZ25hdHVyZQ"))
        let broken = secretish + ".extra"
        do {
            _ = try JWT(decoding: broken)
            Issue.record("a 4-segment token must not decode")
        } catch {
            #expect(!error.description.contains("eyJ"))
        }
    }
}
