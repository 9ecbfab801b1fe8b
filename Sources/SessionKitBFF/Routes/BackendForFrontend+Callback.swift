import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SessionKit
import SessionKitServer
import SessionKitSupport

extension BackendForFrontend {
    /// `GET /auth/callback?code&state`: finishes a sign-in started by ``login(_:)`` on any instance.
    ///
    /// The sign-in must come back to the browser that started it: its sealed sign-in cookie, found by `state`,
    /// holds the PKCE verifier and the `nonce`. Its `state` is spent in the shared store before the code goes to
    /// the provider, so a callback replayed with the same cookie (which every answer clears, but a browser or an
    /// attacker may keep) is refused on every instance and never sends the spent code again: a provider that sees
    /// a code twice revokes the tokens it issued for it (RFC 6749 4.1.2), which would end the session the first
    /// callback made. Only after the code exchange and the ID token's validation is a session created, under a
    /// new id.
    func callback(_ request: Request) async -> Response {
        guard let state = request.uri.queryParameters["state"].map(String.init), !state.isEmpty, state.utf8.count <= 512
        else {
            return failed(.badRequest, "The sign-in answer carries no state; start the sign-in again.", state: nil)
        }
        guard let pending = cookies.signIn(state: state, in: request), ConstantTime.equals(pending.state, state) else {
            logger?.notice("sign-in callback refused: no sign-in of this browser has that state")
            return failed(
                .badRequest,
                "This sign-in answer is not valid here: it expired, was already used, or was started in another "
                    + "browser or by another site. Start the sign-in again.", state: state)
        }
        guard Date().timeIntervalSince(pending.createdAt) <= configuration.signInTimeout else {
            return failed(.badRequest, "This sign-in took too long and expired. Start the sign-in again.", state: state)
        }
        do {
            let until = pending.createdAt.addingTimeInterval(configuration.signInTimeout)
            guard try await index.spend(signInState: state, until: until) else {
                logger?.notice("sign-in callback refused: this sign-in's answer was already used")
                return failed(
                    .badRequest, "This sign-in answer was already used. Start the sign-in again.", state: state)
            }
        } catch {
            logger?.warning("sign-in: the session store is unavailable", metadata: ["error": "\(error)"])
            return failed(
                .serviceUnavailable,
                "The sign-in could not be finished (the session store is unavailable); start "
                    + "the sign-in again.", state: state)
        }
        // The provider's answer as a URL, built by parsing (never by assigning unchecked text to a URL part,
        // which Foundation answers with a crash): a query that is not valid URL text is refused here.
        let query = request.uri.query ?? ""
        guard let url = URL(string: configuration.callbackURL.absoluteString + "?" + query) else {
            return failed(
                .badRequest, "The sign-in answer's query is malformed; start the sign-in again.", state: state)
        }
        let credentials: Credentials
        do {
            credentials = try await provider.exchange(
                callback: url, for: pending.authorizationRequest(callbackURL: configuration.callbackURL))
        } catch {
            logger?.notice("sign-in callback refused", metadata: ["error": "\(error.code)"])
            return exchangeFailure(error, state: state)
        }
        let id: SessionID
        do {
            id = try await sessions.create(credentials)
        } catch {
            return notSaved(error, state: state)
        }
        let now = Date()
        let pushedOut: Set<String>
        do {
            let claims = credentials.idTokenClaims
            pushedOut = try await index.add(
                account: id.account, subject: claims?.subject, sid: claims?.sessionID,
                expiresAt: now.addingTimeInterval(configuration.sessionLifetime))
        } catch {
            // A session the index does not know of could not be ended by a back-channel logout: it is not kept.
            await end(id)
            return notSaved(error, state: state)
        }
        // A provider may give the name and email only from userinfo (OpenID Connect Core 5.4 allows it when an access
        // token is issued): then they are fetched once, now, and kept with the session for `/auth/me`.
        if credentials.idTokenClaims.map({ $0.name == nil || $0.email == nil }) ?? true {
            do {
                _ = try await sessions.userInfo(for: id)
            } catch {
                logger?.notice("sign-in: the userinfo answer was not kept", metadata: ["error": "\(error.code)"])
            }
        }
        // A user past the index's bound: the sessions that end soonest end now.
        for account in pushedOut {
            _ = try? await sessions.logout(account: account)
        }
        // This browser's previous session, if any, ends: one browser, one session, and never an old id reused.
        if let previous = cookies.session(in: request) {
            await end(previous.id)
        }
        let session = SessionCookie(
            id: id, createdAt: now, seenAt: now, lifetime: configuration.sessionLifetime,
            idleTimeout: configuration.idleTimeout)
        return Answers.redirect(
            to: pending.returnTo, setCookies: [cookies.setSession(session), cookies.clearSignIn(state: state)])
    }

    /// The answer when the new session could not be saved, logged with why: a store that refuses the write (a
    /// sealing key other than the one its rows were sealed with, say) fails every sign-in of this user until fixed.
    private func notSaved(_ error: some Error, state: String?) -> Response {
        logger?.warning("sign-in: the session could not be saved", metadata: ["error": "\(error)"])
        return failed(
            .serviceUnavailable, "The session could not be saved (the session store is unavailable); sign in again.",
            state: state)
    }

    private func failed(_ status: HTTPResponse.Status, _ text: String, state: String?) -> Response {
        Answers.page(
            status, title: "Sign-in failed", text: text, link: signInPath,
            setCookies: state.map { [cookies.clearSignIn(state: $0)] } ?? [])
    }

    private func exchangeFailure(_ error: SessionKitError, state: String) -> Response {
        switch error.code {
        case .providerError where error.oauthError == "access_denied":
            return failed(.forbidden, "The sign-in was cancelled or refused at the identity provider.", state: state)
        case .providerError, .signInRequired, .invalidInput:
            return failed(
                .badRequest,
                "The identity provider refused the sign-in answer (\(error.oauthError ?? "\(error.code)")): it may "
                    + "have been used already or expired. Start the sign-in again.", state: state)
        case .validationFailed:
            return failed(
                .badRequest,
                "The identity provider's answer failed validation (\(error.failedCheck.map { "\($0)" } ?? "token")), "
                    + "so no session was created. Start the sign-in again.", state: state)
        default:
            return failed(
                .badGateway, "The identity provider could not be reached to finish the sign-in; try again later.",
                state: state)
        }
    }
}
