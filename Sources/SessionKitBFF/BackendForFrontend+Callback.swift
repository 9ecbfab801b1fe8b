import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SessionKit
import SessionKitServer

extension BackendForFrontend {
    /// `GET /auth/callback?code&state`: finishes a sign-in started by ``login(_:)`` on any instance.
    ///
    /// The started sign-in is taken from the store before anything else, so a replayed or forged callback finds
    /// nothing; it must come back to the browser that started it (the binding cookie), and the code exchange
    /// checks PKCE and the ID token's `nonce`. Only then is a session created, under a new id.
    func callback(_ request: Request) async -> Response {
        guard let state = request.uri.queryParameters["state"].map(String.init), !state.isEmpty else {
            return failed(.badRequest, "The sign-in answer carries no state; start the sign-in again.")
        }
        let record: PendingSignIns.Record?
        do {
            record = try signIns.take(state: state)
        } catch {
            return failed(
                .serviceUnavailable, "The session store cannot be reached right now; start the sign-in again shortly.")
        }
        guard let record else {
            logger?.notice("sign-in callback refused: unknown, used or expired state")
            return failed(
                .badRequest,
                "This sign-in answer is not valid here: it expired, was already used, or was not started by this site. "
                    + "Start the sign-in again.")
        }
        guard let binding = cookies.signInBinding(in: request), PendingSignIns.digest(binding) == record.bindingDigest
        else {
            logger?.notice("sign-in callback refused: not the browser that started it")
            return failed(
                .badRequest, "This sign-in was started in another browser, so it was refused. Start the sign-in again.")
        }
        var callbackURL = URLComponents(url: configuration.callbackURL, resolvingAgainstBaseURL: false)
        callbackURL?.percentEncodedQuery = request.uri.query
        guard let url = callbackURL?.url else {
            return failed(.badRequest, "The sign-in answer's query is malformed; start the sign-in again.")
        }
        let credentials: Credentials
        do {
            credentials = try await provider.exchange(callback: url, for: record.authorizationRequest)
        } catch {
            logger?.notice("sign-in callback refused", metadata: ["error": "\(error.code)"])
            return exchangeFailure(error)
        }
        let id: SessionID
        do {
            id = try await sessions.create(credentials)
        } catch {
            return failed(
                .serviceUnavailable, "The session could not be saved (the session store is unavailable); sign in again."
            )
        }
        // This browser's previous session, if any, ends: one browser, one session, and never an old id reused.
        if let previous = cookies.sessionID(in: request) {
            _ = try? await sessions.logout(previous)
        }
        return Answers.redirect(to: record.returnTo, setCookies: [cookies.setSession(id), cookies.clearSignIn])
    }

    private func failed(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Answers.page(status, title: "Sign-in failed", text: text, link: signInPath, setCookies: [cookies.clearSignIn])
    }

    private func exchangeFailure(_ error: SessionKitError) -> Response {
        switch error.code {
        case .providerError where error.oauthError == "access_denied":
            return failed(.forbidden, "The sign-in was cancelled or refused at the identity provider.")
        case .providerError, .signInRequired:
            return failed(
                .badRequest,
                "The identity provider refused the sign-in answer (\(error.oauthError ?? "\(error.code)")): it may "
                    + "have been used already or expired. Start the sign-in again.")
        case .validationFailed:
            return failed(
                .badRequest,
                "The identity provider's answer failed validation (\(error.failedCheck.map { "\($0)" } ?? "token")), "
                    + "so no session was created. Start the sign-in again.")
        default:
            return failed(
                .badGateway, "The identity provider could not be reached to finish the sign-in; try again later.")
        }
    }
}
