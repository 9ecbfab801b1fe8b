import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Token exchange (RFC 8693)")
struct TokenExchangeTests {
    static let accessType = "urn:ietf:params:oauth:token-type:access_token"
    static let idType = "urn:ietf:params:oauth:token-type:id_token"

    func exchange(_ h: Harness, _ token: String, type: String, extra: [String: String] = [:]) async throws -> HTTPResult
    {
        var parameters = [
            "grant_type": AuthEmulator.GrantType.tokenExchange.rawValue, "client_id": Harness.native,
            "subject_token": token, "subject_token_type": type, "scope": "openid profile",
        ]
        parameters.merge(extra) { _, new in new }
        return try await h.token(parameters)
    }

    @Test func accessTokenIsExchangedForAnotherAudience() async throws {
        try await Harness.with { h in
            let signIn = try await h.signIn()
            let result = try await exchange(
                h, try #require(signIn["access_token"]), type: Self.accessType,
                extra: ["audience": AuthEmulator.API.demoIdentifier, "scope": "openid read:data"])
            #expect(result.status == 200)
            #expect(result["issued_token_type"] == Self.accessType)
            #expect(result["token_type"] == "Bearer")
            let claims = try await h.verify(try #require(result["access_token"])).claims
            #expect(claims["sub"]?.stringValue == AuthEmulator.User.aliceID)
            #expect(claims["aud"] == [.string(AuthEmulator.API.demoIdentifier), .string(h.issuer + "userinfo")])
            #expect(claims["scope"] == "openid read:data")
        }
    }

    @Test func idTokenIsExchanged() async throws {
        try await Harness.with { h in
            let signIn = try await h.signIn()
            let result = try await exchange(h, try #require(signIn["id_token"]), type: Self.idType)
            #expect(result.status == 200)
            #expect(result["id_token"] != nil)
        }
    }

    @Test func invalidExpiredOrMistypedSubjectsAreRefused() async throws {
        try await Harness.with(.testing { $0.lifetimes.accessToken = 60 }) { h in
            let signIn = try await h.signIn()
            let access = try #require(signIn["access_token"])
            #expect(try await exchange(h, "not-a-jwt", type: Self.accessType)["error"] == "invalid_grant")
            #expect(try await exchange(h, access, type: "urn:example:other")["error"] == "invalid_request")
            #expect(try await exchange(h, access, type: Self.idType)["error"] == "invalid_grant")
            try await h.emulator.controls.advanceClock(by: 61)
            let expired = try await exchange(h, access, type: Self.accessType)
            #expect(expired.status == 403)
            #expect(expired["error"] == "invalid_grant")
        }
    }
}
