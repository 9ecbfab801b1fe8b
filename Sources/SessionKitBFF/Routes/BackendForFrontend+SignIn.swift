import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SessionKit

extension BackendForFrontend {
    /// `GET /auth/login[?return_to=/path]`: starts the authorization-code flow and redirects to the provider.
    ///
    /// With pushed authorization requests (``ProviderConfiguration/pushedAuthorization``, or a provider that
    /// requires them) the parameters go to the provider from here, authenticated with the client's secret, and the
    /// browser carries only `client_id` and the `request_uri`.
    ///
    /// What the callback needs (`state`, `nonce`, the PKCE verifier, where to return) goes into a sealed cookie
    /// of this sign-in's own: nothing is written on the server, so a stranger calling this route in a loop costs
    /// no memory and no rows, and two tabs signing in at once each keep their own. A browser keeps at most
    /// ``maximumPendingSignIns`` such cookies: the oldest are cleared.
    func login(_ request: Request) async -> Response {
        var returnTo = "/"
        if let asked = request.uri.queryParameters["return_to"] {
            guard let path = ReturnPath.validated(String(asked)) else {
                return Answers.error(
                    .badRequest, "invalid_return_to",
                    "return_to must be a path on this site of at most \(ReturnPath.maximumLength) bytes, such as "
                        + "/orders; other sites are refused.")
            }
            returnTo = path
        }
        let authorization: AuthorizationRequest
        do {
            authorization = try await provider.authorizationRequest(
                redirectURI: configuration.callbackURL, scope: configuration.scope, audience: configuration.audience)
        } catch {
            logger?.warning(
                "sign-in could not start",
                metadata: ["error": "\(error.code)", "oauth_error": "\(error.oauthError ?? "")"])
            guard error.isRetryable else {
                // Refused, not unreachable (a pushed authorization request answered invalid_client, say): trying
                // again will not help until the back end's registration at the provider is fixed.
                return Answers.error(
                    .badGateway, "sign_in_refused",
                    "The identity provider refused to start the sign-in (\(error.oauthError ?? "\(error.code)")); "
                        + "the site's registration at the provider needs fixing. Any session you have is kept.")
            }
            return Answers.error(
                .badGateway, "provider_unavailable",
                "The identity provider could not be reached to start the sign-in; try again later.")
        }
        // Native to Web SSO: a session transfer token the app added to this URL goes on to /authorize (in the
        // browser's query, never pushed), where the provider signs its user in once; the state and PKCE that bind
        // the callback to this browser are as for any sign-in.
        var authorizeURL = authorization.url
        if let transfer = request.uri.queryParameters["session_transfer_token"], !transfer.isEmpty,
            transfer.utf8.count <= 2048
        {
            authorizeURL = SessionTransferToken(token: Secret(String(transfer)), expiresAt: .distantFuture)
                .appended(to: authorizeURL)
        }
        let now = Date()
        let pending = PendingSignIn(authorization, returnTo: returnTo, createdAt: now)
        // At most `maximumPendingSignIns` sign-ins under way per browser: the oldest give way to this one.
        let older = cookies.clearingSignIns(
            in: request, keeping: Self.maximumPendingSignIns - 1, lifetime: configuration.signInTimeout, now: now)
        return Answers.redirect(
            to: authorizeURL.absoluteString,
            setCookies: older + [cookies.setSignIn(pending, lifetime: configuration.signInTimeout)])
    }

    /// How many sign-ins one browser may have under way at once (tabs signing in together), each with its cookie.
    static let maximumPendingSignIns = 3
}
