import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Userinfo and revocation")
struct UserInfoAndRevocationTests {
    @Test func userinfoReturnsClaimsByScope() async throws {
        try await Harness.with { h in
            let full = try #require(try await h.signIn()["access_token"])
            let info = try await h.get("userinfo", headers: h.bearer(full))
            #expect(info.status == 200)
            #expect(info["sub"] == AuthEmulator.User.aliceID)
            #expect(info["email"] == AuthEmulator.User.aliceEmail)
            #expect(info.json["email_verified"] == true)
            #expect(info["name"] == "Alice Example")

            let narrow = try #require(try await h.signIn(scope: "openid")["access_token"])
            let minimal = try await h.send(.POST, "userinfo", headers: h.bearer(narrow))
            #expect(minimal.status == 200)
            #expect(minimal.json.keys.sorted() == ["sub"])
        }
    }

    @Test func userinfoRefusesBadExpiredAndRevokedTokens() async throws {
        try await Harness.with(.testing { $0.lifetimes.accessToken = 60 }) { h in
            let missing = try await h.get("userinfo")
            #expect(missing.status == 401)
            #expect(missing.headers.first(name: "WWW-Authenticate")?.contains("error=\"invalid_token\"") == true)
            #expect(try await h.get("userinfo", headers: h.bearer("garbage")).status == 401)

            let signIn = try await h.signIn()
            let access = try #require(signIn["access_token"])
            let revoke = try await h.postForm(
                "oauth/revoke", ["client_id": Harness.native, "token": try #require(signIn["refresh_token"])])
            #expect(revoke.status == 200)
            #expect(try await h.get("userinfo", headers: h.bearer(access)).status == 401)

            let later = try #require(try await h.signIn()["access_token"])
            #expect(try await h.get("userinfo", headers: h.bearer(later)).status == 200)
            try await h.emulator.controls.advanceClock(by: 61)
            #expect(try await h.get("userinfo", headers: h.bearer(later)).status == 401)
        }
    }

    @Test func revokingARefreshTokenRevokesItsFamily() async throws {
        try await Harness.with { h in
            let original = try #require(try await h.signIn()["refresh_token"])
            let rotated = try #require(try await h.refresh(original)["refresh_token"])
            let other = try #require(try await h.signIn()["refresh_token"])
            let revoke = try await h.postForm("oauth/revoke", ["client_id": Harness.native, "token": rotated])
            #expect(revoke.status == 200)
            #expect(try await h.refresh(rotated)["error"] == "invalid_grant")
            #expect(try await h.refresh(other).status == 200, "other sign-ins keep working")
        }
    }

    @Test func revocationEdgeCases() async throws {
        try await Harness.with { h in
            let unknown = try await h.postForm("oauth/revoke", ["client_id": Harness.native, "token": "never-issued"])
            #expect(unknown.status == 200)
            let noToken = try await h.postForm("oauth/revoke", ["client_id": Harness.native])
            #expect(noToken["error"] == "invalid_request")
            let noClient = try await h.postForm("oauth/revoke", ["token": "x"])
            #expect(noClient["error"] == "invalid_request")
            let token = try #require(try await h.signIn()["refresh_token"])
            let otherClient = try await h.postForm(
                "oauth/revoke",
                [
                    "client_id": AuthEmulator.Client.confidentialID,
                    "client_secret": AuthEmulator.Client.confidentialSecret,
                    "token": token,
                ])
            #expect(otherClient.status == 400)
            #expect(try await h.refresh(token).status == 200, "another client cannot revoke it")
        }
    }

    @Test func controlsRevokeEveryGrantOfAUser() async throws {
        try await Harness.with { h in
            let one = try #require(try await h.signIn()["refresh_token"])
            let two = try await h.signIn()
            #expect(try await h.emulator.controls.revokeGrants(forUser: AuthEmulator.User.aliceID) == 2)
            #expect(try await h.refresh(one)["error"] == "invalid_grant")
            let access = try #require(two["access_token"])
            #expect(try await h.get("userinfo", headers: h.bearer(access)).status == 401)
        }
    }
}
