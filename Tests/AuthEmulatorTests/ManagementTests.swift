import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Management API: users/{id}")
struct ManagementTests {
    static let scopes = "openid read:current_user update:current_user_metadata"
    static let alicePath = "api/v2/users/auth0%7C65a1f0c0ffee000000000001"

    func managementToken(_ h: Harness, scope: String = scopes) async throws -> String {
        try #require(try await h.signIn(scope: scope, audience: h.issuer + "api/v2/")["access_token"])
    }

    func patch(_ h: Harness, _ token: String, _ body: String, path: String = alicePath) async throws -> HTTPResult {
        try await h.send(.PATCH, path, body: body, contentType: "application/json", headers: h.bearer(token))
    }

    @Test func getReturnsTheUserWithFieldFilters() async throws {
        try await Harness.with { h in
            let token = try await managementToken(h)
            let aud = try await h.verify(token).claims["aud"]
            #expect(aud == [.string(h.issuer + "api/v2/"), .string(h.issuer + "userinfo")])
            let full = try await h.get(Self.alicePath, headers: h.bearer(token))
            #expect(full.status == 200)
            #expect(full["user_id"] == AuthEmulator.User.aliceID)
            #expect(
                full.json["user_metadata"] == ["theme": "dark", "preferences": ["language": "en", "newsletter": true]])
            #expect(full.json["app_metadata"]?.objectValue?["plan"] == "pro")

            let only = try await h.get(Self.alicePath + "?fields=user_id,email", headers: h.bearer(token))
            #expect(only.json.keys.sorted() == ["email", "user_id"])
            let without = try await h.get(
                Self.alicePath + "?fields=user_metadata,app_metadata&include_fields=false", headers: h.bearer(token))
            #expect(without.json["user_metadata"] == nil)
            #expect(without.json["app_metadata"] == nil)
            #expect(without.json["email"] != nil)
        }
    }

    @Test func patchMergesUserMetadataAsAuth0Does() async throws {
        try await Harness.with { h in
            let token = try await managementToken(h)
            let result = try await patch(
                h, token, #"{"user_metadata":{"theme":null,"preferences":{"language":"de"},"new":1}}"#)
            #expect(result.status == 200)
            #expect(result.json["user_metadata"] == ["preferences": ["language": "de"], "new": 1])
            let after = try await h.get(Self.alicePath + "?fields=user_metadata", headers: h.bearer(token))
            #expect(after.json["user_metadata"] == ["preferences": ["language": "de"], "new": 1])
        }
    }

    @Test func authorizationIsEnforced() async throws {
        try await Harness.with { h in
            let readOnly = try await managementToken(h, scope: "openid read:current_user")
            let patched = try await patch(h, readOnly, #"{"user_metadata":{"a":1}}"#)
            #expect(patched.status == 403)
            #expect(patched["errorCode"] == "insufficient_scope")
            #expect(patched.json["statusCode"] == 403)
            #expect(patched["error"] == "Forbidden")
            #expect(patched["message"]?.contains("update:current_user_metadata") == true)

            let token = try await managementToken(h)
            let bob = try await h.get("api/v2/users/auth0%7C65a1f0c0ffee000000000002", headers: h.bearer(token))
            #expect(bob.status == 403)

            let wrongAudience = try #require(try await h.signIn(scope: Self.scopes)["access_token"])
            #expect(try await h.get(Self.alicePath, headers: h.bearer(wrongAudience)).status == 401)
            let missing = try await h.get(Self.alicePath)
            #expect(missing.status == 401)
            #expect(missing.json["statusCode"] == 401)
        }
    }

    @Test func patchInputIsValidated() async throws {
        try await Harness.with { h in
            let token = try await managementToken(h)
            let array = try await patch(h, token, #"[1,2]"#)
            #expect(array.status == 400)
            #expect(array["errorCode"] == "invalid_body")
            #expect(try await patch(h, token, #"{"user_metadata":"text"}"#).status == 400)
            #expect(try await patch(h, token, #"{"email":"x@example.com"}"#).status == 400)
            #expect(try await patch(h, token, #"{"user_metadata":{},"app_metadata":{"plan":"free"}}"#).status == 400)
            let big = String(repeating: "x", count: 17 * 1024)
            let tooLarge = try await patch(h, token, #"{"user_metadata":{"blob":"\#(big)"}}"#)
            #expect(tooLarge.status == 400)
            #expect(tooLarge["message"]?.contains("16384") == true)
            #expect(try await patch(h, token, "not json").status == 400)
            let unchanged = try await h.get(Self.alicePath + "?fields=user_metadata", headers: h.bearer(token))
            #expect(unchanged.json["user_metadata"]?.objectValue?["theme"] == "dark")
        }
    }
}
