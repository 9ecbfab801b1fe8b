import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Password, realm and client-credentials grants")
struct GrantTests {
    static let backend = AuthEmulator.Client.confidentialID
    static let secret = AuthEmulator.Client.confidentialSecret

    @Test func passwordGrantIssuesTokensByScope() async throws {
        try await Harness.with { h in
            let withOffline = try await h.signIn()
            #expect(withOffline["refresh_token"] != nil)
            #expect(withOffline["id_token"] != nil)
            let noOffline = try await h.signIn(scope: "openid")
            #expect(noOffline["refresh_token"] == nil)
            let noOpenID = try await h.signIn(scope: "profile")
            #expect(noOpenID["id_token"] == nil)
            let wrong = try await h.token([
                "grant_type": "password", "client_id": Harness.native, "username": AuthEmulator.User.aliceEmail,
                "password": "nope",
            ])
            #expect(wrong.status == 403)
            #expect(wrong["error"] == "invalid_grant")
            #expect(wrong["error_description"] == "Wrong email or password.")
        }
    }

    @Test func passwordRealmChecksTheConnection() async throws {
        try await Harness.with { h in
            var parameters = [
                "grant_type": AuthEmulator.GrantType.passwordRealm.rawValue, "client_id": Harness.native,
                "username": AuthEmulator.User.bobEmail, "password": AuthEmulator.User.bobPassword,
                "realm": AuthEmulator.User.defaultConnection, "scope": "openid email",
            ]
            let ok = try await h.token(parameters)
            #expect(ok.status == 200)
            let claims = try await h.verify(try #require(ok["id_token"])).claims
            #expect(claims["email_verified"] == false)
            parameters["realm"] = "other-connection"
            #expect(try await h.token(parameters)["error"] == "invalid_grant")
            parameters["realm"] = nil
            #expect(try await h.token(parameters)["error"] == "invalid_request")
        }
    }

    @Test func jsonBodiesAreAccepted() async throws {
        try await Harness.with { h in
            let body = """
                {"grant_type":"password","client_id":"\(Harness.native)","username":"\(AuthEmulator.User.aliceEmail)",
                "password":"\(AuthEmulator.User.alicePassword)","scope":"openid"}
                """
            let result = try await h.send(.POST, "oauth/token", body: body, contentType: "application/json")
            #expect(result.status == 200)
            #expect(result["token_type"] == "Bearer")
        }
    }

    @Test func clientCredentialsWithPostAndBasicAuthentication() async throws {
        try await Harness.with { h in
            let api = AuthEmulator.API.demoIdentifier
            let post = try await h.token([
                "grant_type": "client_credentials", "client_id": Self.backend, "client_secret": Self.secret,
                "audience": api,
            ])
            #expect(post.status == 200)
            #expect(post["scope"] == "read:data write:data")
            #expect(post["id_token"] == nil)
            #expect(post["refresh_token"] == nil)
            let claims = try await h.verify(try #require(post["access_token"])).claims
            #expect(claims["aud"]?.stringValue == api)
            #expect(claims["sub"]?.stringValue == "\(Self.backend)@clients")
            #expect(claims["gty"] == "client-credentials")

            let basic = Data("\(Self.backend):\(Self.secret)".utf8).base64EncodedString()
            let viaBasic = try await h.token(
                ["grant_type": "client_credentials", "audience": api, "scope": "read:data"],
                headers: [("Authorization", "Basic \(basic)")]
            )
            #expect(viaBasic.status == 200)
            #expect(viaBasic["scope"] == "read:data")
        }
    }

    @Test func clientAuthenticationFailures() async throws {
        try await Harness.with { h in
            let api = AuthEmulator.API.demoIdentifier
            let badSecret = try await h.token([
                "grant_type": "client_credentials", "client_id": Self.backend, "client_secret": "wrong",
                "audience": api,
            ])
            #expect(badSecret.status == 401)
            #expect(badSecret["error"] == "invalid_client")
            let noSecret = try await h.token([
                "grant_type": "client_credentials", "client_id": Self.backend, "audience": api,
            ])
            #expect(noSecret["error"] == "invalid_client")
            let publicClient = try await h.token([
                "grant_type": "client_credentials", "client_id": Harness.native, "audience": api,
            ])
            #expect(publicClient.status == 403)
            #expect(publicClient["error"] == "unauthorized_client")
            let noAudience = try await h.token([
                "grant_type": "client_credentials", "client_id": Self.backend, "client_secret": Self.secret,
            ])
            #expect(noAudience["error"] == "access_denied")
            let unknownAudience = try await h.token([
                "grant_type": "client_credentials", "client_id": Self.backend, "client_secret": Self.secret,
                "audience": "https://unknown.example/",
            ])
            #expect(unknownAudience["error"] == "access_denied")
        }
    }

    @Test func malformedRequestsGetOAuthErrors() async throws {
        try await Harness.with { h in
            let unsupported = try await h.token(["grant_type": "implicit", "client_id": Harness.native])
            #expect(unsupported.status == 400)
            #expect(unsupported["error"] == "unsupported_grant_type")
            let missing = try await h.token(["client_id": Harness.native])
            #expect(missing["error"] == "invalid_request")
            let noClient = try await h.token(["grant_type": "password"])
            #expect(noClient["error"] == "invalid_request")
            let unknownClient = try await h.token(["grant_type": "password", "client_id": "ghost"])
            #expect(unknownClient.status == 401)
            let garbage = try await h.send(.POST, "oauth/token", body: "{not json", contentType: "application/json")
            #expect(garbage["error"] == "invalid_request")
            let huge = #"{"grant_type":"password","client_id":"sessionkit-native","username":1e300,"password":true}"#
            let odd = try await h.send(.POST, "oauth/token", body: huge, contentType: "application/json")
            #expect(odd["error"] == "invalid_grant")
            let oversized = try await h.send(.POST, "oauth/token", body: String(repeating: "a", count: 1_100_000))
            #expect(oversized.status == 400)
            #expect(oversized["error"] == "invalid_request")
        }
    }

    @Test func confidentialClientCanSignIDTokensWithItsSecret() async throws {
        try await Harness.with(.testing { $0.clients[1].signsIDTokensWithSecret = true }) { h in
            let result = try await h.token([
                "grant_type": "password", "client_id": Self.backend, "client_secret": Self.secret,
                "username": AuthEmulator.User.aliceEmail, "password": AuthEmulator.User.alicePassword,
                "scope": "openid",
            ])
            let idToken = try #require(result["id_token"])
            let header = try JSONDecoder().decode(
                [String: JSONValue].self, from: Harness.base64URLDecode(String(idToken.split(separator: ".")[0])))
            #expect(header["alg"] == "HS256")
            #expect(try Harness.unverifiedClaims(idToken)["aud"]?.stringValue == Self.backend)
        }
    }
}
