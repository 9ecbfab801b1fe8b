import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SessionKit
import SessionKitServer

extension BackendForFrontend {
    /// The session the request's sealed cookie names, checked against the absolute lifetime and the idle
    /// timeout: `.live` (with a `Set-Cookie` to send when the cookie should record this visit), `.none` when
    /// there is no cookie this back end sealed (nothing on the server is read or written), `.ended` after
    /// ending a session that outlived its lifetime or idle timeout, or `.newer` for a cookie a newer back end
    /// sealed (kept: see ``noSession(_:)``).
    enum CookieSession {
        case none
        case ended
        case newer(version: Int)
        case live(SessionCookie, refresh: String?)
    }

    func cookieSession(_ request: Request) async -> CookieSession {
        guard var session = cookies.session(in: request) else {
            return cookies.newerSessionVersion(in: request).map { .newer(version: $0) } ?? .none
        }
        let now = Date()
        if let reason = session.ended(at: now) {
            logger?.info("session ended", metadata: ["session": "\(session.id)", "reason": "\(reason)"])
            await end(session.id)
            return .ended
        }
        guard session.needsRefresh(at: now) else { return .live(session, refresh: nil) }
        session.seenAt = now
        return .live(session, refresh: cookies.setSession(session))
    }

    /// The answer for a request without a live session: 401 with the cookie cleared, except for a cookie a newer
    /// back end sealed, which is kept, with the session, and answered as written by a newer version (503: another
    /// instance may read it).
    func noSession(_ state: CookieSession) -> Response {
        guard case .newer(let version) = state else { return signInRequired }
        return sessionFailure(
            SessionKitError(
                code: .writtenByNewerVersion,
                message: "the session cookie is of version \(version), written by a newer back end (this one reads up "
                    + "to \(SessionCookie.version)); it is kept"))
    }

    /// `GET /auth/me`: who is signed in, from the session's ID token (and the userinfo answer kept at sign-in for
    /// what the ID token lacks), and until when at most; or 401.
    func me(_ request: Request) async -> Response {
        let state = await cookieSession(request)
        guard case .live(let session, let refresh) = state else { return noSession(state) }
        let credentials: Credentials
        do {
            credentials = try await sessions.credentials(for: session.id)
        } catch {
            return sessionFailure(error)
        }
        let claims = credentials.idTokenClaims
        var profile: UserProfile?
        if claims?.name == nil || claims?.email == nil {
            profile = try? await sessions.cachedProfile(for: session.id)
        }
        return Answers.json(
            .ok,
            Me(
                signedIn: true, sub: claims?.subject, name: claims?.name ?? profile?.name,
                email: claims?.email ?? profile?.email,
                expiresAt: credentials.expiresAt.map { $0.formatted(.iso8601) },
                sessionExpiresAt: session.expiresAt.formatted(.iso8601)),
            setCookies: refresh.map { [$0] } ?? [])
    }

    /// `POST /auth/logout`: ends the session here (revoking the refresh token at the provider, deleting it on
    /// every instance, clearing the cookie), then sends the browser to end the provider's session too.
    ///
    /// The answer is JSON `{"signed_in": false, "revoked", "logout_url"}` for a script, which then sets
    /// `location` to `logout_url`; a plain form post (`Content-Type: application/x-www-form-urlencoded`) gets a
    /// 303 there directly. `logout_url` is `null` when provider logout is off or the provider has no end-session
    /// endpoint; the front end then stays on its own page.
    func logout(_ request: Request) async -> Response {
        if let refusal = forgeryCheck.refusal(for: request) { return refusal }
        var revoked = false
        var idToken: Secret?
        if let version = cookies.newerSessionVersion(in: request) { return noSession(.newer(version: version)) }
        if let session = cookies.session(in: request) {
            do {
                (revoked, idToken) = try await endSession(session.id)
            } catch {
                return Answers.error(
                    .serviceUnavailable, "session_store_unavailable",
                    "The session could not be deleted right now (the session store is unavailable); try again.",
                    retryAfter: 1)
            }
        }
        var logoutURL: URL?
        if configuration.providerLogout {
            do {
                logoutURL = try await provider.endSessionURL(
                    idTokenHint: idToken, postLogoutRedirectURI: configuration.postLogoutRedirectURL,
                    state: PKCE.randomToken(bytes: 16))
            } catch {
                logger?.notice("logout: no end-session URL", metadata: ["error": "\(error.code)"])
            }
        }
        let isFormPost = request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded")
        if isFormPost == true {
            return Answers.redirect(
                to: logoutURL?.absoluteString ?? configuration.postLogoutRedirectPath,
                setCookies: [cookies.clearSession])
        }
        return Answers.json(
            .ok, LoggedOut(signedIn: false, revoked: revoked, logoutURL: logoutURL?.absoluteString),
            setCookies: [cookies.clearSession])
    }

    /// Ends the session `id` here and on every instance (revoking its refresh token) and forgets it in the
    /// index.
    ///
    /// - Returns: Whether the refresh token was revoked, and the session's ID token (the end-session hint).
    /// - Throws: ``SessionKit/SessionKitError/Code/storeUnavailable`` when the session could not be deleted.
    func endSession(_ id: SessionID) async throws(SessionKitError) -> (revoked: Bool, idToken: Secret?) {
        let stored = try await sessions.storedCredentials(for: id)
        let result = try await sessions.logout(id)
        if let error = result.revocationError {
            logger?.notice("logout: the provider did not revoke", metadata: ["error": "\(error.code)"])
        }
        let claims = stored?.idTokenClaims
        try? await index.remove(account: id.account, subject: claims?.subject, sid: claims?.sessionID)
        return (result.revoked, stored?.idToken)
    }

    /// ``endSession(_:)`` for callers that answer as if the session ended whatever happens (one past its
    /// lifetime, a browser's previous session): a failure is logged, and the store's sweep removes what it left.
    func end(_ id: SessionID) async {
        do {
            _ = try await endSession(id)
        } catch {
            logger?.warning("a session could not be ended", metadata: ["error": "\(error.code)"])
        }
    }
}

/// The answer of `GET /auth/me`.
struct Me: Encodable {
    var signedIn: Bool
    var sub: String?
    var name: String?
    var email: String?
    /// When the access token expires (it is renewed before that as needed).
    var expiresAt: String?
    /// When the session ends whatever happens (its absolute lifetime).
    var sessionExpiresAt: String

    enum CodingKeys: String, CodingKey {
        case signedIn = "signed_in"
        case sub, name, email
        case expiresAt = "expires_at"
        case sessionExpiresAt = "session_expires_at"
    }
}

/// The answer of `POST /auth/logout`.
struct LoggedOut: Encodable {
    var signedIn: Bool
    var revoked: Bool
    var logoutURL: String?

    enum CodingKeys: String, CodingKey {
        case signedIn = "signed_in"
        case revoked
        case logoutURL = "logout_url"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(signedIn, forKey: .signedIn)
        try container.encode(revoked, forKey: .revoked)
        try container.encode(logoutURL, forKey: .logoutURL)
    }
}
