import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SessionKit
import SessionKitServer

extension BackendForFrontend {
    /// `POST /auth/backchannel-logout`: the provider says a user signed out there, or an administrator ended
    /// them (OpenID Connect Back-Channel Logout 1.0). The form field `logout_token` is validated
    /// (``SessionKit/ProviderClient/validateLogoutToken(_:maxAge:)``), its `jti` is recorded in the shared store
    /// so that a replay is refused on every instance, and the sessions it names end on every instance (the store
    /// announces it) and are revoked: those of its `sid` when it names one, else every session of its `sub`
    /// (Back-Channel Logout 1.0 §2.4: a `sid` names one sign-on session, not every device of the user).
    ///
    /// 200 when done; 400 `invalid_request` for anything but a valid, unused logout token (nothing is ended);
    /// 503 when the store or the provider's keys cannot be reached (the provider may send it again).
    func backChannelLogout(_ request: Request) async -> Response {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        else { return refusedLogout("the body must be a form (application/x-www-form-urlencoded)") }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: 16 << 10)
        } catch {
            return refusedLogout("the body is larger than a logout token can be (16 KiB)")
        }
        let fields = URLComponents(string: "?" + String(buffer: body))?.queryItems ?? []
        let tokens = fields.filter { $0.name == "logout_token" }.compactMap(\.value)
        guard tokens.count == 1, let text = tokens.first, !text.isEmpty else {
            return refusedLogout("the form must carry exactly one logout_token")
        }
        let token: LogoutToken
        do {
            token = try await provider.validateLogoutToken(Secret(text))
        } catch  where error.isRetryable {
            logger?.warning("back-channel logout: keys unavailable", metadata: ["error": "\(error.code)"])
            return Answers.error(
                .serviceUnavailable, "temporarily_unavailable",
                "The provider's keys could not be fetched to check the logout token; send it again.", retryAfter: 5)
        } catch {
            let check = error.failedCheck.map { "\($0)" } ?? "\(error.code)"
            logger?.notice("back-channel logout refused", metadata: ["check": "\(check)"])
            return refusedLogout("the logout token is not valid (\(check))")
        }
        // The replay check comes first, and the token is spent only once its sessions have ended: a failure on
        // the way leaves it unspent, so the provider's next delivery of the same token still works.
        let ended: Int
        do {
            guard try await !index.isSpent(jwtID: token.jwtID) else {
                logger?.notice("back-channel logout refused: a replayed logout token")
                return refusedLogout("this logout token was already used")
            }
            let accounts = try await index.accounts(subject: token.subject, sid: token.sessionID)
            // Many at once, a bounded number in flight (a user signed in on a thousand devices is signed out
            // within a second); the first store failure starts no more and answers 503, the token left unspent.
            try await sessions.logout(accounts: accounts)
            _ = try await index.spend(jwtID: token.jwtID, until: token.expiresAt)
            try await index.remove(accounts: accounts, subject: token.subject, sid: token.sessionID)
            ended = accounts.count
        } catch {
            logger?.warning("back-channel logout: store unavailable", metadata: ["error": "\(error)"])
            return Answers.error(
                .serviceUnavailable, "temporarily_unavailable",
                "The session store cannot be reached right now; send the logout token again.", retryAfter: 1)
        }
        logger?.info("back-channel logout", metadata: ["sessions": "\(ended)"])
        return Answers.json(.ok, BackChannelLogoutDone(ended: ended))
    }

    private func refusedLogout(_ reason: String) -> Response {
        Answers.error(.badRequest, "invalid_request", "The back-channel logout was refused: \(reason).")
    }
}

/// The answer of a back-channel logout: how many sessions ended here.
struct BackChannelLogoutDone: Encodable {
    var ended: Int
}
