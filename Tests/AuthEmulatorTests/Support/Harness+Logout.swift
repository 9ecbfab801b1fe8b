import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

/// Flows for the logout tests: a browser sign-in through the form (an SSO session and its cookie), and reading
/// the JOSE header of a token.
extension Harness {
    /// What a browser sign-in produced.
    struct BrowserSignIn: Sendable {
        /// The `emulator_session=…` cookie, ready for a `Cookie` header.
        var cookie: String
        /// The token response of the code exchange.
        var tokens: HTTPResult
        /// The ID token of that response.
        var idToken: String
    }

    /// Signs Alice in through `/u/login` for the native client and exchanges the code.
    func signInWithBrowser() async throws -> BrowserSignIn {
        let pkce = Self.pkce()
        let signedIn = try await postForm(
            "u/login",
            [
                "client_id": Self.native, "redirect_uri": Self.callback, "response_type": "code",
                "scope": Self.fullScope, "code_challenge": pkce.challenge, "code_challenge_method": "S256",
                "username": AuthEmulator.User.aliceEmail, "password": AuthEmulator.User.alicePassword,
            ])
        #expect(signedIn.status == 302, "sign-in failed: \(signedIn.text)")
        let cookie = String(try #require(signedIn.headers.first(name: "Set-Cookie")?.split(separator: ";").first))
        let tokens = try await token([
            "grant_type": "authorization_code", "client_id": Self.native,
            "code": try #require(signedIn.redirectQuery["code"]), "code_verifier": pkce.verifier,
            "redirect_uri": Self.callback,
        ])
        return BrowserSignIn(cookie: cookie, tokens: tokens, idToken: try #require(tokens["id_token"]))
    }

    /// The confidential client signs in with the browser's existing SSO session (no password asked) and exchanges
    /// the code: a second client issued tokens in the same session. Returns its ID token.
    func signInConfidentialClient(cookie: String) async throws -> String {
        let authorize = try await get(
            "authorize?"
                + Form.encode([
                    "client_id": AuthEmulator.Client.confidentialID, "redirect_uri": Self.callback,
                    "response_type": "code", "scope": "openid profile",
                ]),
            headers: [("Cookie", cookie)])
        let code = try #require(authorize.redirectQuery["code"], "no code: \(authorize.status) \(authorize.text)")
        let tokens = try await token([
            "grant_type": "authorization_code", "client_id": AuthEmulator.Client.confidentialID,
            "client_secret": AuthEmulator.Client.confidentialSecret, "code": code, "redirect_uri": Self.callback,
        ])
        return try #require(tokens["id_token"], "no ID token: \(tokens.text)")
    }

    /// Whether the SSO session behind `cookie` is still alive: a silent `/authorize` gets a code.
    func sessionIsAlive(cookie: String) async throws -> Bool {
        let silent = try await get(
            Self.authorizePath(challenge: Self.pkce().challenge, extra: ["prompt": "none"]),
            headers: [("Cookie", cookie)])
        return silent.redirectQuery["code"] != nil
    }

    /// The `/oidc/logout` path with these query parameters.
    static func logoutPath(_ parameters: [String: String]) -> String {
        "oidc/logout?" + Form.encode(parameters)
    }

    /// A JWT's JOSE header, unverified.
    static func header(of jwt: String) throws -> [String: JSONValue] {
        try JSONDecoder().decode(
            [String: JSONValue].self, from: base64URLDecode(String(jwt.split(separator: ".")[0])))
    }

    /// Decodes a form-encoded body.
    static func formValues(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            values[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return values
    }
}
