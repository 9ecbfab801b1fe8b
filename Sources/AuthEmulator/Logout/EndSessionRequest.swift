import Foundation

/// A validated `/oidc/logout` request (OIDC RP-Initiated Logout 1.0 §2–3).
///
/// Every check happens before anything is ended, so a refused request ends nothing. Failures are shown on a 400
/// page and never redirected: a `post_logout_redirect_uri` is trusted only once it is registered for the client
/// the request names.
struct EndSessionRequest: Sendable {
    /// The verified `id_token_hint`, when one was sent.
    var hint: IDTokenHint?
    /// The client the request names, by the hint's `aud` or by `client_id`.
    var client: AuthEmulator.Client?
    /// The registered `post_logout_redirect_uri` to send the browser to afterwards.
    var postLogoutRedirectURI: String?
    /// The `state` to echo on that redirect.
    var state: String?

    /// Why a request was refused, for the error page; it names no token.
    struct Failure: Error {
        var message: String
    }

    static func parse(_ p: RequestParameters, core: EmulatorCore) async throws(Failure) -> EndSessionRequest {
        var hint: IDTokenHint?
        if let token = p["id_token_hint"] {
            guard let verified = await IDTokenHint.verify(token, core: core) else {
                throw Failure(
                    message: "The id_token_hint is not an ID token signed by this emulator for one of its clients. "
                        + "Send an ID token it issued (expired ones are accepted), or no hint.")
            }
            hint = verified
        }
        var client = hint.flatMap { core.client(id: $0.clientID) }
        if let clientID = p["client_id"] {
            guard let named = core.client(id: clientID) else {
                throw Failure(message: "Unknown client_id. Check it against the emulator's clients.")
            }
            if let hint, hint.clientID != named.id {
                throw Failure(
                    message: "The client_id does not match the audience of the id_token_hint. Send the client_id "
                        + "the ID token was issued to, or leave it out.")
            }
            client = named
        }
        let redirect = p["post_logout_redirect_uri"]
        if let redirect {
            guard let client else {
                throw Failure(
                    message: "A post_logout_redirect_uri needs a client: send an id_token_hint or a client_id.")
            }
            guard AuthorizeRequest.isAllowed(redirect, among: client.postLogoutRedirectURIs) else {
                throw Failure(
                    message: "The post_logout_redirect_uri is not registered for client \(client.id). Add it to "
                        + "the client's postLogoutRedirectURIs.")
            }
        }
        return EndSessionRequest(hint: hint, client: client, postLogoutRedirectURI: redirect, state: p["state"])
    }
}
