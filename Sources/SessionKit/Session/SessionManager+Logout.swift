import Logging

extension SessionManager {
    /// What ``SessionManager/logout(revoke:)`` did.
    public struct LogoutResult: Sendable {
        /// Whether a session was stored before logout.
        public let hadSession: Bool
        /// Whether the refresh token was revoked at the provider.
        public let revoked: Bool
        /// Why revocation failed or was skipped, when it was asked for and did not happen.
        public let revocationError: SessionKitError?
    }

    /// Signs out: clears the session locally, then revokes the refresh token at the provider.
    ///
    /// Local sign-out never depends on revocation: the session is cleared first, atomically with any
    /// renewal under way (a renewal that finishes afterwards is discarded and its new refresh token
    /// revoked), and ``LogoutResult/revocationError`` says when revocation failed.
    ///
    /// - Throws: ``SessionKitError/Code/storeUnavailable`` when the store cannot be written; then nothing
    ///   was cleared, so try again.
    @discardableResult
    public func logout(revoke: Bool = true) async throws(SessionKitError) -> LogoutResult {
        await finishLogout(try await clearForLogout(), revoke: revoke)
    }

    /// A session ended by ``clearForLogout()``: whether there was one, and the refresh token to revoke.
    package struct EndedSession: Sendable {
        /// Whether a session was stored before logout.
        package let hadSession: Bool
        /// The refresh token the session held (or the one a renewal left unsaved), to revoke.
        package let refreshToken: Secret?
    }

    /// The first half of ``logout(revoke:)``: clears the session, atomically with any renewal under way, and says
    /// which refresh token to revoke. A caller that ends many sessions at once (a back-channel logout) clears them
    /// all first and revokes afterwards with ``finishLogout(_:revoke:)``, so that every session ends in the time of
    /// the store writes alone.
    package func clearForLogout() async throws(SessionKitError) -> EndedSession {
        var previous: Credentials?
        try await updateRecord { stored in
            previous = stored.credentials
            // Nothing to clear (no session, or one that already ended): nothing is written, so signing out a
            // session that does not exist costs one read and no write.
            guard stored.credentials != nil || stored.renewal != nil || stored.profile != nil else { return nil }
            return stored.cleared()
        }
        // A renewal left unsaved holds the live refresh token: that is the one to revoke.
        if let unsaved = await dropPendingRenewal(), previous != nil { previous = unsaved }
        states.publish(.signedOut)
        return EndedSession(hadSession: previous != nil, refreshToken: previous?.refreshToken)
    }

    /// The second half of ``logout(revoke:)``: revokes the ended session's refresh token when `revoke` asks for it.
    package func finishLogout(_ ended: EndedSession, revoke: Bool) async -> LogoutResult {
        guard revoke, let refreshToken = ended.refreshToken else {
            let skipped =
                revoke && ended.hadSession
                ? SessionKitError(code: .invalidInput, message: "there was no refresh token to revoke") : nil
            return LogoutResult(hadSession: ended.hadSession, revoked: false, revocationError: skipped)
        }
        do {
            try await provider.revoke(refreshToken)
            return LogoutResult(hadSession: true, revoked: true, revocationError: nil)
        } catch {
            logger?.notice("signed out locally; revocation failed", metadata: ["error": "\(error.code)"])
            return LogoutResult(hadSession: true, revoked: false, revocationError: error)
        }
    }
}
