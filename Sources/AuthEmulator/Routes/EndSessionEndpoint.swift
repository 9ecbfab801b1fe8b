import Foundation
import Hummingbird
import HummingbirdAnswers
import Logging

/// `GET` and `POST /oidc/logout` (Auth0's path): the end-session endpoint of OIDC RP-Initiated Logout 1.0.
///
/// A valid request ends the SSO session the `id_token_hint` names (its `sid`) and the browser's own session (its
/// cookie, when it belongs to the hint's user or there is no hint), clears the cookie, sends the logout tokens
/// those sessions owe (Back-Channel Logout 1.0, waiting at most the delivery timeout), and then redirects to the
/// registered `post_logout_redirect_uri` with `state` (302 for `GET`, 303 for `POST`) or shows a "signed out"
/// page. The grants (refresh tokens) issued in the session are not revoked, as at Auth0: ending them is the
/// relying party's part, on the logout token. A refused request (400 page) ends nothing.
struct EndSessionEndpoint: Sendable {
    let core: EmulatorCore

    func register(on router: Router<EmulatorRequestContext>) {
        router.get("oidc/logout") { request, _ -> Response in
            let cookie = request.cookies[AuthorizeEndpoint.sessionCookie]?.value
            return await endSession(RequestParameters.query(of: request), cookie: cookie, redirectStatus: .found)
        }
        router.post("oidc/logout") { request, _ -> Response in
            var request = request
            let cookie = request.cookies[AuthorizeEndpoint.sessionCookie]?.value
            let parameters: RequestParameters
            do throws(OAuthError) {
                parameters = try await RequestParameters.body(of: &request)
            } catch {
                return Answer.html(HTMLPages.message("Invalid request", error.description), status: .badRequest)
            }
            return await endSession(parameters, cookie: cookie, redirectStatus: .seeOther)
        }
    }

    private func endSession(
        _ parameters: RequestParameters,
        cookie: String?,
        redirectStatus: HTTPResponse.Status
    ) async -> Response {
        let request: EndSessionRequest
        do throws(EndSessionRequest.Failure) {
            request = try await EndSessionRequest.parse(parameters, core: core)
        } catch {
            return Answer.html(HTMLPages.message("Cannot sign out", error.message), status: .badRequest)
        }
        let ended = await core.state.endSessions(
            sid: request.hint?.sid,
            cookie: cookie,
            ofUser: request.hint?.subject
        )
        core.logger.debug("SSO sessions ended", metadata: ["count": "\(ended.count)"])
        _ = await BackchannelLogout(core: core).sessionsEnded(ended)
        var response: Response
        if let uri = request.postLogoutRedirectURI {
            let location = request.state.map { AuthorizeRequest.redirect(uri, [("state", $0)]) } ?? uri
            response = Answer.redirect(to: location, status: redirectStatus)
        } else {
            response = Answer.html(HTMLPages.signedOut())
        }
        if let cookie, await core.state.session(cookie: cookie) == nil {
            response.setCookie(
                Cookie(
                    name: AuthorizeEndpoint.sessionCookie,
                    value: "",
                    maxAge: 0,
                    path: "/",
                    httpOnly: true,
                    sameSite: .lax
                )
            )
        }
        return response
    }
}
