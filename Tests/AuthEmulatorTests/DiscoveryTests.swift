import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Discovery and JWKS")
struct DiscoveryTests {
    @Test func discoveryAdvertisesEveryEndpoint() async throws {
        try await Harness.with { h in
            let result = try await h.get(".well-known/openid-configuration")
            #expect(result.status == 200)
            let doc = result.json
            #expect(h.issuer.hasSuffix("/"))
            #expect(doc["issuer"]?.stringValue == h.issuer)
            #expect(doc["authorization_endpoint"]?.stringValue == h.issuer + "authorize")
            #expect(doc["token_endpoint"]?.stringValue == h.issuer + "oauth/token")
            #expect(doc["device_authorization_endpoint"]?.stringValue == h.issuer + "oauth/device/code")
            #expect(doc["userinfo_endpoint"]?.stringValue == h.issuer + "userinfo")
            #expect(doc["revocation_endpoint"]?.stringValue == h.issuer + "oauth/revoke")
            #expect(doc["jwks_uri"]?.stringValue == h.issuer + ".well-known/jwks.json")
            #expect(doc["code_challenge_methods_supported"] == ["S256"])
            #expect(doc["response_types_supported"] == ["code"])
            guard case .array(let grants)? = doc["grant_types_supported"] else {
                Issue.record("grant_types_supported missing")
                return
            }
            for grant in AuthEmulator.GrantType.allSupported {
                #expect(grants.contains(.string(grant.rawValue)))
            }
        }
    }

    @Test func jwksPublishesTheSigningKey() async throws {
        try await Harness.with { h in
            let result = try await h.get(".well-known/jwks.json")
            #expect(result.status == 200)
            guard case .array(let keys)? = result.json["keys"], case .object(let key)? = keys.first else {
                Issue.record("no keys in \(result.text)")
                return
            }
            #expect(keys.count == 1)
            #expect(key["kty"] == "RSA")
            #expect(key["alg"] == "RS256")
            #expect(key["use"] == "sig")
            #expect(key["n"]?.stringValue?.isEmpty == false)
            #expect(key["e"] == "AQAB")
            #expect(key["kid"]?.stringValue == (try await h.emulator.controls.currentKeyID()))
            #expect(key["d"] == nil, "private material must never be published")
        }
    }

    @Test func es256KeysSignVerifiableTokens() async throws {
        try await Harness.with(.testing { $0.signingAlgorithm = .es256 }) { h in
            let jwks = try await h.get(".well-known/jwks.json")
            #expect(jwks.text.contains("\"crv\":\"P-256\""))
            let tokens = try await h.signIn()
            let verified = try await h.verify(try #require(tokens["access_token"]))
            #expect(verified.claims["sub"]?.stringValue == AuthEmulator.User.aliceID)
        }
    }

    @Test func dateHeaderFollowsTheEmulatorClock() async throws {
        try await Harness.with { h in
            try await h.emulator.controls.advanceClock(by: 400 * 86_400)
            let result = try await h.get(".well-known/openid-configuration")
            let header = try #require(result.headers.first(name: "Date"))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
            let date = try #require(formatter.date(from: header), "unparseable Date \(header)")
            let expected = try h.emulator.controls.now()
            #expect(abs(date.timeIntervalSince(expected)) < 5)
            #expect(date.timeIntervalSinceNow > 399 * 86_400)
        }
    }
}
