import AsyncHTTPClient
import AuthEmulator
import Crypto
import Foundation
import JWTKit
import Testing

/// Common flows, so tests read as the scenario they check.
extension Harness {
    static let native = AuthEmulator.Client.nativeID
    static let callback = "http://127.0.0.1/callback"
    static let fullScope = "openid profile email offline_access"

    /// A PKCE verifier and its S256 challenge.
    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = "verifier-" + UUID().uuidString + "-" + UUID().uuidString
        let digest = Data(SHA256.hash(data: Data(verifier.utf8)))
        let challenge = digest.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return (verifier, challenge)
    }

    /// The `/authorize` path for the native client with PKCE.
    static func authorizePath(challenge: String, extra: [String: String] = [:]) -> String {
        var parameters = [
            "client_id": native, "redirect_uri": callback, "response_type": "code", "scope": fullScope,
            "state": "state-123", "code_challenge": challenge, "code_challenge_method": "S256",
        ]
        parameters.merge(extra) { _, new in new }
        return "authorize?" + Form.encode(parameters)
    }

    /// Password-grant sign-in of Alice with the native client.
    func signIn(scope: String = fullScope, audience: String? = nil) async throws -> HTTPResult {
        var parameters = [
            "grant_type": "password", "client_id": Self.native, "username": AuthEmulator.User.aliceEmail,
            "password": AuthEmulator.User.alicePassword, "scope": scope,
        ]
        parameters["audience"] = audience
        let result = try await token(parameters)
        #expect(result.status == 200, "sign-in failed: \(result.text)")
        return result
    }

    func refresh(_ refreshToken: String, scope: String? = nil) async throws -> HTTPResult {
        var parameters = ["grant_type": "refresh_token", "client_id": Self.native, "refresh_token": refreshToken]
        parameters["scope"] = scope
        return try await token(parameters)
    }

    /// Verifies a JWT against the published JWKS and returns its header `kid` and claims.
    func verify(_ jwt: String) async throws -> (kid: String?, claims: [String: JSONValue]) {
        let jwks = try await get(".well-known/jwks.json")
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: jwks.text)
        let payload = try await keys.verify(jwt, as: AnyClaims.self)
        let header = try JSONDecoder().decode(
            [String: JSONValue].self,
            from: Self.base64URLDecode(String(jwt.split(separator: ".")[0]))
        )
        return (header["kid"]?.stringValue, payload.claims)
    }

    static func base64URLDecode(_ text: String) -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64) ?? Data()
    }

    /// Decodes a JWT's claims without verifying (for tokens signed with a client secret).
    static func unverifiedClaims(_ jwt: String) throws -> [String: JSONValue] {
        try JSONDecoder().decode(
            [String: JSONValue].self, from: base64URLDecode(String(jwt.split(separator: ".")[1])))
    }
}

/// Any JWT payload, for signature checks in tests; claims are asserted by the tests themselves.
struct AnyClaims: JWTPayload {
    var claims: [String: JSONValue]

    init(from decoder: any Decoder) throws {
        claims = try [String: JSONValue](from: decoder)
    }

    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
