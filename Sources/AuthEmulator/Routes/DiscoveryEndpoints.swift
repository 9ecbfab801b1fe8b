import Hummingbird
import HummingbirdAnswers
import SessionKitSupport

/// `/.well-known/openid-configuration` and `/.well-known/jwks.json`.
struct DiscoveryEndpoints: Sendable {
    let core: EmulatorCore

    func register(on router: Router<EmulatorRequestContext>) {
        router.get(".well-known/openid-configuration") { _, _ -> Response in discovery() }
        router.get(".well-known/jwks.json") { _, _ -> Response in
            do {
                var response = Answer.json(try await core.keys.jwks(now: core.clock.now))
                response.headers[.cacheControl] = "no-cache"
                return response
            } catch {
                return OAuthError(.serverError, "The key set is unavailable.").response
            }
        }
    }

    /// The OpenID Provider Metadata (OIDC Discovery §3), advertising every endpoint the emulator serves.
    func discovery() -> Response {
        let issuer = core.issuer
        let grantTypes = AuthEmulator.GrantType.allSupported.map { JSONValue.string($0.rawValue) }
        let apiScopes = core.configuration.apis.flatMap(\.scopes) + AuthEmulator.API.managementScopes
        let methods = core.configuration.clientAuthenticationMethods.map { JSONValue.string($0) }
        var document: [String: JSONValue] = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "authorize"),
            "token_endpoint": .string(issuer + "oauth/token"),
            "device_authorization_endpoint": .string(issuer + "oauth/device/code"),
            "userinfo_endpoint": .string(issuer + "userinfo"),
            "revocation_endpoint": .string(issuer + "oauth/revoke"),
            "end_session_endpoint": .string(issuer + "oidc/logout"),
            "pushed_authorization_request_endpoint": .string(issuer + "oauth/par"),
            "require_pushed_authorization_requests": .bool(core.pushed.isRequiredByAny),
            "backchannel_authentication_endpoint": .string(issuer + "bc-authorize"),
            "backchannel_token_delivery_modes_supported": .array(
                AuthEmulator.BackchannelTokenDeliveryMode.allSupported.map { .string($0.rawValue) }),
            "backchannel_user_code_parameter_supported": false,
            "jwks_uri": .string(issuer + ".well-known/jwks.json"),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [.string(core.configuration.signingAlgorithm.rawValue), "HS256"],
            "token_endpoint_auth_methods_supported": .array(methods),
            "revocation_endpoint_auth_methods_supported": .array(methods),
            "code_challenge_methods_supported": ["S256"],
            "dpop_signing_alg_values_supported": ["ES256"],
            "grant_types_supported": .array(grantTypes),
            "claims_supported": [
                "aud", "auth_time", "azp", "email", "email_verified", "exp", "iat", "iss", "name", "nickname",
                "nonce", "picture", "sid", "sub",
            ],
            "request_parameter_supported": false,
            "claims_parameter_supported": false,
            "frontchannel_logout_supported": false,
            "backchannel_logout_supported": true,
            "backchannel_logout_session_supported": true,
        ]
        document["scopes_supported"] = .array(
            (core.scopes.discoveryScopes + apiScopes).map { .string($0) }
        )
        var response = Answer.json(document)
        response.headers[.cacheControl] = "no-cache"
        return response
    }
}
