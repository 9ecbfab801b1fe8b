import Foundation
import SessionKitSupport
import Synchronization

/// Session transfer tokens (Auth0's Native to Web SSO): issued for a user by a token exchange of a refresh token,
/// honoured once by `/authorize` for a client that accepts them, within their lifetime. Only their digests are
/// kept.
final class SessionTransfers: Sendable {
    /// How long a session transfer token may be used after it is issued (Auth0: 60 seconds).
    static let lifetime: TimeInterval = 60

    private struct Issued {
        let userID: String
        let expiresAt: Date
    }

    private let issued = Mutex([String: Issued]())

    /// A new token for `userID`, usable until `now` plus ``lifetime``.
    func issue(for userID: String, now: Date) -> String {
        let token = SecureRandom.token(byteCount: 32)
        issued.withLock { issued in
            issued = issued.filter { $0.value.expiresAt > now }
            issued[Hex.sha256(token)] = Issued(userID: userID, expiresAt: now.addingTimeInterval(Self.lifetime))
        }
        return token
    }

    /// The user of `token`, spending it, when it was issued here, is unused and unexpired at `now`; else `nil`.
    func redeem(_ token: String, now: Date) -> String? {
        issued.withLock { issued in
            guard let entry = issued.removeValue(forKey: Hex.sha256(token)), entry.expiresAt > now else { return nil }
            return entry.userID
        }
    }
}
