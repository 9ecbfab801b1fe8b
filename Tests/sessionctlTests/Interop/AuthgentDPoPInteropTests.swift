import Foundation
import SecureStore
import SessionKit
import Testing

/// Issue 25: DPoP against a provider nobody here wrote: authgent-server 0.3.4 from PyPI (`Interop/authgent`),
/// started by `.ci/run` with DPoP proofs and nonces required.
///
/// What it checks, from its source: a proof's `typ`, `alg` (ES256), `jwk`, signature, `htm`, `htu`, `iat` (60 s),
/// and its nonce (a 401 `use_dpop_nonce` with a `DPoP-Nonce` header, at its token endpoint too); it binds access
/// tokens (`cnf.jkt`, `token_type` DPoP) and rotates refresh tokens. What it does not do, so what only the emulator
/// proves: bind refresh tokens to the key, refuse a reused `jti`, or check proofs at any resource endpoint (it has
/// no userinfo route).
@Suite("Interop: DPoP against authgent-server")
struct AuthgentDPoPInteropTests {
    static var base: URL? {
        LoopbackInteropServer.running(variable: "SESSIONKIT_INTEROP_AUTHGENT_URL", folder: "authgent")
    }

    /// A public client registered for this test (RFC 7591, open registration).
    static func register(at base: URL, redirectURI: String) async throws -> String {
        let body = #"""
            {"client_name":"sessionkit-interop","redirect_uris":["\#(redirectURI)"],"token_endpoint_auth_method":"none",\#
            "grant_types":["authorization_code","refresh_token"],"response_types":["code"],"scope":"read write"}
            """#
        let answer = try await ProviderClient.defaultTransport.send(
            HTTPRequest(
                method: "POST", url: base.appendingPathComponent("register"),
                headers: [("Content-Type", "application/json")], body: Data(body.utf8)),
            timeout: .seconds(10))
        guard answer.status == 201 || answer.status == 200,
            let id = try JSONValue(parsing: answer.body)["client_id"]?.stringValue
        else { throw TestFailure("registration answered \(answer.status)") }
        return id
    }

    @Test("code flow with PKCE and DPoP: a bound token, its nonce demands answered, renewed with rotation")
    func boundSession() async throws {
        guard let base = Self.base else {
            let required = ProcessInfo.processInfo.environment["SESSIONKIT_REQUIRE_INTEROP"] == "1"
            if required { Issue.record("authgent-server is not running: start it with Interop/authgent/start.sh") }
            return  // skipped: nothing to run against (Interop/authgent/start.sh starts it)
        }
        let redirectURI = "http://127.0.0.1:31899/callback"
        let clientID = try await Self.register(at: base, redirectURI: redirectURI)
        let key = DPoPKey.generate()
        var configuration = try ProviderConfiguration(issuer: base, clientID: clientID, scope: "read")
        configuration.dpop = key
        let provider = ProviderClient(configuration: configuration)
        let request = try await provider.authorizationRequest(redirectURI: URL(string: redirectURI)!)
        // Its consent is automatic: /authorize answers with the redirect to the callback at once.
        let authorized = try await ProviderClient.defaultTransport.send(
            HTTPRequest(method: "GET", url: request.url), timeout: .seconds(10))
        let location = try #require(authorized.header("Location"), "HTTP \(authorized.status)")
        let credentials = try await provider.exchange(callback: try #require(URL(string: location)), for: request)
        #expect(credentials.isDPoPBound)
        #expect(
            try JWT(decoding: credentials.accessToken.unsafeRawValue).claims["cnf"]?["jkt"]?.stringValue
                == key.thumbprint)
        #expect(credentials.refreshToken != nil)

        let session = SessionManager(provider: provider, store: MemoryStore(service: "authgent-interop"))
        try await session.store(credentials)
        let renewed = try await session.renew()
        #expect(renewed.isDPoPBound && renewed.accessToken != credentials.accessToken)
        #expect(renewed.refreshToken != credentials.refreshToken, "rotated")
        #expect(
            try JWT(decoding: renewed.accessToken.unsafeRawValue).claims["cnf"]?["jkt"]?.stringValue
                == key.thumbprint)

        // It demands nonces (so SessionKit answered them above): a proof without one gets 401 use_dpop_nonce.
        let unnonced = try key.proof(method: "POST", url: base.appendingPathComponent("token"))
        let demanded = try await ProviderClient.defaultTransport.send(
            HTTPRequest(
                method: "POST", url: base.appendingPathComponent("token"),
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("DPoP", unnonced)],
                body: Data("grant_type=refresh_token&client_id=\(clientID)&refresh_token=x".utf8)),
            timeout: .seconds(10))
        #expect(demanded.status == 401 && demanded.header("DPoP-Nonce") != nil, "HTTP \(demanded.status)")
        #expect(demanded.header("WWW-Authenticate")?.contains("use_dpop_nonce") == true)

        // A proof for another URL is refused by its token endpoint, and the refresh token is not spent by it.
        // (It checks htu before the nonce, so this proof needs none.)
        let wrong = try key.proof(method: "POST", url: base.appendingPathComponent("elsewhere"))
        let refused = try await ProviderClient.defaultTransport.send(
            HTTPRequest(
                method: "POST", url: base.appendingPathComponent("token"),
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("DPoP", wrong)],
                body: Data(
                    "grant_type=refresh_token&client_id=\(clientID)&refresh_token=\(renewed.refreshToken?.unsafeRawValue ?? "")"
                        .utf8)),
            timeout: .seconds(10))
        #expect([400, 401].contains(refused.status), "HTTP \(refused.status)")
        #expect(try await session.renew().isDPoPBound, "the refresh token survived the refused proof")
    }
}
