import Foundation
import Hummingbird
import HummingbirdAnswers

/// `GET /authorize` (authorization code with PKCE) and the sign-in form's `POST /u/login`.
struct AuthorizeEndpoint: Sendable {
    let core: EmulatorCore
    static let sessionCookie = "emulator_session"

    func register(on router: Router<EmulatorRequestContext>) {
        router.get("authorize") { request, _ -> Response in
            await authorize(RequestParameters.query(of: request), cookie: request.cookies[Self.sessionCookie]?.value)
        }
        router.post("u/login") { request, _ -> Response in
            var request = request
            let parameters: RequestParameters
            do throws(OAuthError) {
                parameters = try await RequestParameters.body(of: &request)
            } catch {
                return Answer.html(HTMLPages.message("Error", error.description), status: .badRequest)
            }
            return await signIn(parameters)
        }
    }

    private func authorize(_ parameters: RequestParameters, cookie: String?) async -> Response {
        let request: AuthorizeRequest
        do throws(AuthorizeRequest.Failure) {
            request = try AuthorizeRequest.parse(resolving: parameters, core: core)
        } catch {
            return failure(error)
        }
        let now = core.clock.now
        // Native to Web SSO: a session transfer token signs its user in, once, for a client that accepts it; any
        // other (unknown, used, expired, or for a client that does not accept them) is ignored, and the user signs
        // in as usual.
        if let transfer = parameters["session_transfer_token"], request.client.acceptsSessionTransferTokens,
            let userID = core.sessionTransfers.redeem(transfer, now: now)
        {
            let (cookie, session) = await core.state.createSession(userID: userID, now: now)
            return await issueCode(request, session: session, setting: cookie)
        }
        if let cookie, let session = await core.state.session(cookie: cookie), !request.prompt.contains("login"),
            request.maxAge.map({ now.timeIntervalSince(session.authTime) <= Double($0) }) ?? true
        {
            return await issueCode(request, session: session)
        }
        if request.prompt.contains("none") {
            let error = OAuthError(.loginRequired, "Login required")
            return failure(.redirect(error, redirectURI: request.redirectURI, state: request.state))
        }
        if let autoUser = core.configuration.autoSignInUser,
            let user = await core.state.user(idOrEmail: autoUser)
        {
            let (cookie, session) = await core.state.createSession(userID: user.id, now: now)
            return await issueCode(request, session: session, setting: cookie)
        }
        return Answer.html(HTMLPages.signIn(carrying: carried(parameters), clientName: request.client.name))
    }

    private func signIn(_ parameters: RequestParameters) async -> Response {
        let request: AuthorizeRequest
        do throws(AuthorizeRequest.Failure) {
            request = try AuthorizeRequest.parse(resolving: parameters, core: core)
        } catch {
            return failure(error)
        }
        if parameters["action"] == "deny" {
            if let uri = request.requestURI { _ = core.pushed.consume(uri) }
            let denied = OAuthError(.accessDenied, "The user cancelled the sign-in.")
            return failure(.redirect(denied, redirectURI: request.redirectURI, state: request.state))
        }
        guard let username = parameters["username"], let password = parameters["password"],
            let user = await core.state.authenticate(username: username, password: password)
        else {
            let page = HTMLPages.signIn(
                carrying: carried(parameters),
                error: "Wrong email or password.",
                clientName: request.client.name
            )
            return Answer.html(page, status: .unauthorized)
        }
        let (cookie, session) = await core.state.createSession(userID: user.id, now: core.clock.now)
        return await issueCode(request, session: session, setting: cookie)
    }

    /// Redirects with a code for the session's user; the code carries the session's `sid` into the grant.
    private func issueCode(
        _ request: AuthorizeRequest,
        session: BrowserSession,
        setting cookie: String? = nil
    ) async -> Response {
        if let uri = request.requestURI, !core.pushed.consume(uri) {
            let used = OAuthError(.invalidRequestURI, "The request_uri has been used already; push the request again.")
            return failure(.redirect(used, redirectURI: request.redirectURI, state: request.state))
        }
        let expiresAt = core.clock.now.addingTimeInterval(core.configuration.lifetimes.authorizationCode)
        let scopes = core.scopes.userGrant(requested: request.scope, audience: request.audience)
        let code = await core.state.issueCode(
            AuthorizationCodeRecord(
                digest: "",
                clientID: request.client.id,
                redirectURI: request.redirectURI,
                codeChallenge: request.codeChallenge,
                userID: session.userID,
                scopes: scopes,
                audience: request.audience,
                nonce: request.nonce,
                authTime: session.authTime,
                expiresAt: expiresAt,
                sid: session.sid,
                acr: request.acrValues.first,
                dpopJKT: request.dpopJKT
            )
        )
        var pairs = [("code", code)]
        if let state = request.state { pairs.append(("state", state)) }
        var headers = HTTPFields()
        if let cookie {
            headers[.setCookie] = "\(Self.sessionCookie)=\(cookie); Path=/; HttpOnly; SameSite=Lax"
        }
        return Answer.redirect(to: AuthorizeRequest.redirect(request.redirectURI, pairs), headers: headers)
    }

    private func failure(_ failure: AuthorizeRequest.Failure) -> Response {
        switch failure {
        case .page(let message):
            return Answer.html(HTMLPages.message("Invalid request", message), status: .badRequest)
        case .redirect(let error, let redirectURI, let state):
            var pairs = [("error", error.code.rawValue), ("error_description", error.description)]
            if let state { pairs.append(("state", state)) }
            return Answer.redirect(to: AuthorizeRequest.redirect(redirectURI, pairs))
        }
    }

    private func carried(_ parameters: RequestParameters) -> [(String, String)] {
        AuthorizeRequest.carriedParameters.compactMap { name in parameters[name].map { (name, $0) } }
    }
}
