import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAnswers
import Logging
import SessionKitSupport

/// `POST /oauth/par` (RFC 9126): authenticates the client as the token endpoint does, checks the authorization
/// request as `/authorize` would, and answers `201` with a one-use `request_uri` and its `expires_in`.
struct PushedAuthorizationEndpoint: Sendable {
    let core: EmulatorCore

    func register(on router: Router<EmulatorRequestContext>) {
        router.postFromClient("oauth/par", core: core, refused: "Pushed authorization request refused") {
            (request, parameters, client) async throws(OAuthError) -> Response in
            let jkt = try await DPoPVerifier(core: core).authorizationServerKey(
                of: request, url: core.issuer + "oauth/par")
            var answer = try push(parameters, client: client, dpop: jkt)
            if let nonce = await core.dpop.nonceToAnnounce { answer.headers[HTTPField.Name("DPoP-Nonce")!] = nonce }
            return answer
        }
    }

    /// Checks the pushed parameters as an authorization request of `client` and stores them.
    private func push(_ p: RequestParameters, client: AuthEmulator.Client, dpop: String?) throws(OAuthError)
        -> Response
    {
        guard p["request_uri"] == nil else {
            throw OAuthError(.invalidRequest, "A pushed authorization request must not carry a request_uri.")
        }
        guard p["request"] == nil else {
            throw OAuthError(.invalidRequest, "Request objects (the request parameter) are not supported.")
        }
        var values = p.values.filter { $0.key != "client_secret" }
        values["client_id"] = client.id
        let parameters = RequestParameters(values)
        do throws(AuthorizeRequest.Failure) {
            _ = try AuthorizeRequest.parse(parameters, core: core)
        } catch {
            switch error {
            case .page(let message): throw OAuthError(.invalidRequest, message)
            case .redirect(let refusal, _, _): throw refusal
            }
        }
        let lifetime = core.configuration.lifetimes.pushedRequest
        let now = core.clock.now
        let uri = core.pushed.push(
            .init(
                clientID: client.id, parameters: parameters, expiresAt: now.addingTimeInterval(lifetime), dpopJKT: dpop),
            now: now)
        return Answer.json(
            ["request_uri": .string(uri), "expires_in": .int(Int(lifetime.rounded()))], status: .created)
    }
}
