import Hummingbird

/// `POST /oauth/revoke` (RFC 7009): revoking a refresh token revokes its whole family, and with it the access
/// tokens issued from that grant. Unknown tokens answer 200, as the RFC requires.
struct RevokeEndpoint: Sendable {
    let core: EmulatorCore

    func register(on router: Router<EmulatorRequestContext>) {
        router.postFromClient("oauth/revoke", core: core) {
            (request, parameters, client) async throws(OAuthError) -> Response in
            guard let token = parameters["token"] else {
                throw OAuthError(.invalidRequest, "Missing required parameter: token")
            }
            guard await core.state.revokeRefreshToken(token, clientID: client.id) else {
                throw OAuthError(.invalidRequest, "The token was not issued to this client.")
            }
            var response = Response(status: .ok)
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }
}
