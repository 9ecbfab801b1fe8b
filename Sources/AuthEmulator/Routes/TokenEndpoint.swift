import HTTPTypes
import Hummingbird
import HummingbirdAnswers
import Logging

/// `POST /oauth/token`: authenticates the client and dispatches on `grant_type`.
struct TokenEndpoint: Sendable {
    let core: EmulatorCore

    func register(on router: Router<EmulatorRequestContext>) {
        router.postFromClient("oauth/token", core: core, refused: "Token request refused") {
            (request, parameters, client) async throws(OAuthError) -> Response in
            let jkt = try await DPoPVerifier(core: core).authorizationServerKey(
                of: request, url: core.issuer + "oauth/token")
            let response = try await grant(parameters, client: client, dpop: jkt)
            var answer = Answer.json(response)
            if let nonce = await core.dpop.nonceToAnnounce { answer.headers[HTTPField.Name("DPoP-Nonce")!] = nonce }
            return answer
        }
    }

    private func grant(_ p: RequestParameters, client: AuthEmulator.Client, dpop: String?) async throws(OAuthError)
        -> TokenResponse
    {
        guard let wire = p["grant_type"] else {
            throw OAuthError(.invalidRequest, "Missing required parameter: grant_type")
        }
        let grantType = AuthEmulator.GrantType(rawValue: wire)
        guard AuthEmulator.GrantType.allSupported.contains(grantType) else {
            throw OAuthError(.unsupportedGrantType, "Unsupported grant type: \(wire)")
        }
        guard client.grantTypes.contains(grantType) else {
            throw OAuthError(.unauthorizedClient, "Grant type '\(wire)' not allowed for the client.")
        }
        let grants = Grants(core: core, client: client, dpop: dpop)
        switch grantType {
        case .authorizationCode: return try await grants.authorizationCode(p)
        case .refreshToken: return try await grants.refreshToken(p)
        case .password, .passwordRealm: return try await grants.password(p, realm: grantType == .passwordRealm)
        case .deviceCode: return try await grants.deviceCode(p)
        case .tokenExchange: return try await grants.tokenExchange(p)
        case .clientCredentials: return try await grants.clientCredentials(p)
        case .ciba: return try await grants.ciba(p)
        default: throw OAuthError(.unsupportedGrantType, "Unsupported grant type: \(wire)")
        }
    }
}
