import Foundation
import SessionKitSupport

/// An SSO session that was just ended, and the clients that were issued tokens in it.
struct EndedSession: Sendable, Equatable {
    var sid: String
    var userID: String
    /// The clients with a grant from a sign-in in this session, sorted: the ones owed a logout token.
    var clientIDs: [String]
}

extension EmulatorState {
    /// Starts an SSO session; returns the cookie value (only its digest is kept) and the session.
    func createSession(userID: String, now: Date) -> (cookie: String, session: BrowserSession) {
        let cookie = SecureRandom.token()
        let session = BrowserSession(userID: userID, authTime: now)
        sessions[Hex.sha256(cookie)] = session
        persist()
        return (cookie, session)
    }

    /// The live session of a cookie.
    func session(cookie: String) -> BrowserSession? { sessions[Hex.sha256(cookie)] }

    /// The clients issued tokens in the session `sid`: those with a grant carrying it, revoked or not.
    func clientIDs(inSession sid: String) -> [String] {
        Set(grants.values.filter { $0.sid == sid }.map(\.clientID)).sorted()
    }

    /// Ends what `/oidc/logout` names: the session `sid` (from an ID token hint) and the cookie's session,
    /// the latter only when `userID` is `nil` or the cookie belongs to that user (a hint for Bob does not sign
    /// Alice out of the browser). Returns the sessions ended; none is an answer, not an error.
    func endSessions(sid: String?, cookie: String?, ofUser userID: String?) -> [EndedSession] {
        var digests: [String] = []
        if let sid {
            digests += sessions.filter { $0.value.sid == sid }.map(\.key)
        }
        if let cookie {
            let digest = Hex.sha256(cookie)
            if let session = sessions[digest], userID == nil || session.userID == userID {
                digests.append(digest)
            }
        }
        return end(digests)
    }

    /// Ends every SSO session of a user.
    func endSessions(ofUser userID: String) -> [EndedSession] {
        end(sessions.filter { $0.value.userID == userID }.map(\.key))
    }

    private func end(_ digests: [String]) -> [EndedSession] {
        var ended: [EndedSession] = []
        for digest in Set(digests) {
            guard let session = sessions.removeValue(forKey: digest) else { continue }
            ended.append(
                EndedSession(sid: session.sid, userID: session.userID, clientIDs: clientIDs(inSession: session.sid)))
        }
        if !ended.isEmpty { persist() }
        return ended.sorted { $0.sid < $1.sid }
    }
}
