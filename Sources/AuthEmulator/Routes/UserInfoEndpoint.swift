import Hummingbird
import HummingbirdAnswers
import JWTKit
import SessionKitSupport

/// `GET`/`POST /userinfo` (OIDC Core §5.3): standard claims by the token's scopes.
struct UserInfoEndpoint: Sendable {
    let core: EmulatorCore

    func register(on router: Router<EmulatorRequestContext>) {
        router.get("userinfo") { request, _ -> Response in await userinfo(request) }
        router.post("userinfo") { request, _ -> Response in await userinfo(request) }
    }

    private func userinfo(_ request: Request) async -> Response {
        let claims: AccessTokenClaims
        do {
            claims = try await ResourceAuthorization(core: core).claims(of: request)
        } catch {
            return ResourceAuthorization.unauthorized(error)
        }
        guard claims.aud.value.contains(core.userinfoAudience), let user = await core.state.user(id: claims.sub) else {
            return ResourceAuthorization.unauthorized(.invalidToken)
        }
        let scopes = Set(claims.scopes)
        var body: [String: JSONValue] = ["sub": .string(user.id)]
        if scopes.contains("profile") {
            body["name"] = .string(user.name)
            body["nickname"] = .string(user.nickname)
            body["picture"] = .string(user.picture)
        }
        if scopes.contains("email") {
            body["email"] = .string(user.email)
            body["email_verified"] = .bool(user.emailVerified)
        }
        return Answer.json(body)
    }
}
