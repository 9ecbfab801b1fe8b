import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SessionKit
import SessionKitServer

extension BackendForFrontend {
    /// `GET /auth/me`: who is signed in, from the session's ID token, or 401.
    func me(_ request: Request) async -> Response {
        guard let id = cookies.sessionID(in: request) else {
            return Answers.error(
                .unauthorized, "sign_in_required", "There is no session; send the user to sign in.", signIn: signInPath)
        }
        let credentials: Credentials
        do {
            credentials = try await sessions.credentials(for: id)
        } catch {
            return sessionFailure(error)
        }
        let claims = credentials.idTokenClaims
        return Answers.json(
            .ok,
            [
                "signed_in": true,
                "sub": claims?.subject ?? NSNull(),
                "name": claims?.name ?? NSNull(),
                "email": claims?.email ?? NSNull(),
                "expires_at": credentials.expiresAt.map { $0.formatted(.iso8601) } ?? NSNull(),
            ])
    }

    /// `POST /auth/logout`: revokes the refresh token at the provider, deletes the session (every instance
    /// refuses it within a second) and clears the cookie.
    func logout(_ request: Request) async -> Response {
        if let refusal = forgeryCheck.refusal(for: request) { return refusal }
        guard let id = cookies.sessionID(in: request) else {
            return Answers.json(.ok, ["signed_in": false, "revoked": false], setCookies: [cookies.clearSession])
        }
        do {
            let result = try await sessions.logout(id)
            if let error = result.revocationError {
                logger?.notice("logout: the provider did not revoke", metadata: ["error": "\(error.code)"])
            }
            return Answers.json(
                .ok, ["signed_in": false, "revoked": result.revoked], setCookies: [cookies.clearSession])
        } catch {
            return Answers.error(
                .serviceUnavailable, "session_store_unavailable",
                "The session could not be deleted right now (the session store is unavailable); try again.",
                retryAfter: 1)
        }
    }
}
