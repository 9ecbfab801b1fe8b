import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

/// A back end's machine-to-machine access to the Management API: client-credentials tokens through a client grant,
/// with the grant's scopes, accepted for any user within those scopes.
@Suite("Management API: client grants")
struct ManagementClientGrantTests {
    static let backend = AuthEmulator.Client.confidentialID
    static let secret = AuthEmulator.Client.confidentialSecret
    static let alicePath = "api/v2/users/auth0%7C65a1f0c0ffee000000000001"
    static let bobPath = "api/v2/users/auth0%7C65a1f0c0ffee000000000002"

    func clientToken(_ h: Harness, client: String = backend, secret: String = secret, scope: String? = nil)
        async throws -> HTTPResult
    {
        var parameters = [
            "grant_type": "client_credentials", "client_id": client, "client_secret": secret,
            "audience": h.issuer + "api/v2/",
        ]
        parameters["scope"] = scope
        return try await h.token(parameters)
    }

    @Test("the seeded back end gets read:users update:users; a narrower request gets only what it names")
    func grantedScopes() async throws {
        try await Harness.with { h in
            let all = try await clientToken(h)
            #expect(all.status == 200)
            #expect(all["scope"] == "read:users update:users")
            let claims = try await h.verify(try #require(all["access_token"])).claims
            #expect(claims["aud"]?.stringValue == h.issuer + "api/v2/")
            #expect(claims["gty"] == "client-credentials")
            let narrow = try await clientToken(h, scope: "read:users read:current_user delete:users")
            #expect(narrow["scope"] == "read:users", "scopes outside the client grant are dropped")
        }
    }

    @Test("a client without a client grant on the Management API is refused, as Auth0 does")
    func noClientGrant() async throws {
        let other = AuthEmulator.Client(id: "m2m-without-grant", name: "No grant", secret: "another-test-secret")
        try await Harness.with(.testing { $0.clients.append(other) }) { h in
            let refused = try await clientToken(h, client: other.id, secret: "another-test-secret")
            #expect(refused.status == 403)
            #expect(refused["error"] == "access_denied")
            #expect(refused["error_description"]?.contains("client-grant") == true)
            let api = try await h.token([
                "grant_type": "client_credentials", "client_id": other.id, "client_secret": "another-test-secret",
                "audience": AuthEmulator.API.demoIdentifier,
            ])
            #expect(api["scope"] == "read:data write:data", "another API still gives its scopes")
        }
    }

    @Test("an M2M token reads and patches any user within its scopes")
    func machineTokenReadsAndPatchesAnyUser() async throws {
        try await Harness.with { h in
            let token = try #require(try await clientToken(h)["access_token"])
            let bob = try await h.get(Self.bobPath, headers: h.bearer(token))
            #expect(bob.status == 200)
            #expect(bob["user_id"] == AuthEmulator.User.bobID)
            let patched = try await h.send(
                .PATCH, Self.alicePath, body: #"{"user_metadata":{"theme":"light"}}"#, contentType: "application/json",
                headers: h.bearer(token))
            #expect(patched.status == 200)
            #expect(patched.json["user_metadata"]?.objectValue?["theme"] == "light")

            let readOnly = try #require(try await clientToken(h, scope: "read:users")["access_token"])
            #expect(try await h.get(Self.alicePath, headers: h.bearer(readOnly)).status == 200)
            let refused = try await h.send(
                .PATCH, Self.alicePath, body: #"{"user_metadata":{"theme":"x"}}"#, contentType: "application/json",
                headers: h.bearer(readOnly))
            #expect(refused.status == 403)
            #expect(refused["message"]?.contains("update:users") == true)
            #expect(try await h.get("api/v2/users/auth0%7Cnobody", headers: h.bearer(token)).status == 404)
        }
    }

    @Test("a user's token never gets read:users, and still reaches only its own user")
    func userTokensStayOwn() async throws {
        try await Harness.with { h in
            let signedIn = try await h.signIn(
                scope: "openid read:users update:users read:current_user", audience: h.issuer + "api/v2/")
            #expect(signedIn["scope"]?.contains("read:users") == false)
            let token = try #require(signedIn["access_token"])
            #expect(try await h.get(Self.bobPath, headers: h.bearer(token)).status == 403)
        }
    }

    @Test("client_credentials requests are counted per grant type")
    func counted() async throws {
        try await Harness.with(.testing()) { h in
            _ = try await clientToken(h)
            _ = try await clientToken(h)
            let counts = try await h.emulator.controls.requestCounts()
            #expect(counts[AuthEmulator.GrantType.clientCredentials] == 2)
        }
    }

    @Test("a client grant on an unknown API, or with a scope the API lacks, is a configuration error")
    func validation() async throws {
        let unknown = AuthEmulator.Client(
            id: "bad", name: "Bad", secret: "s", clientGrants: [.init(audience: "https://nowhere.example/", scopes: [])]
        )
        await #expect(throws: AuthEmulatorError.self) {
            try await AuthEmulator.start(configuration: .testing { $0.clients = [unknown] })
        }
        let wrongScope = AuthEmulator.Client(
            id: "bad", name: "Bad", secret: "s", clientGrants: [.init(audience: nil, scopes: ["delete:users"])])
        await #expect(throws: AuthEmulatorError.self) {
            try await AuthEmulator.start(configuration: .testing { $0.clients = [wrongScope] })
        }
    }
}
