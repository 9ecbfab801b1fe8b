import Foundation
import SessionKitSupport
import Synchronization

/// Client-initiated back-channel authentication requests (OpenID CIBA Core 1.0) awaiting the user's decision, keyed
/// by the digest of their `auth_req_id`. Small shared state behind a lock, kept in memory only: a request lives
/// minutes, not across restarts.
final class BackchannelRequests: Sendable {
    /// Where a request stands.
    enum Status: Sendable, Equatable {
        case pending
        case approved(authTime: Date)
        case denied
        case consumed
    }

    /// What a ping-mode request needs to notify its client: the bearer token the client chose and the `auth_req_id`
    /// to name (kept in memory only, as the request itself).
    struct Ping: Sendable {
        var clientNotificationToken: String
        var authReqID: String
    }

    /// A request: whose it is, for which user, what it asked for, and how it is polled (or pinged).
    struct Record: Sendable {
        var clientID: String
        var userID: String
        var scopes: [String]
        var audience: String?
        var bindingMessage: String?
        var expiresAt: Date
        /// The minimum seconds between polls; grows by 5 with every `slow_down`.
        var interval: Int
        var lastPolledAt: Date?
        /// Set by a test control: the next poll answers `slow_down` whatever its timing, as a loaded provider does.
        var slowDownNext = false
        var status = Status.pending
        /// Set for a ping-mode request when it is started.
        var ping: Ping?
    }

    private let records = Mutex<[String: Record]>([:])

    /// Stores a request and returns its new `auth_req_id`; records expired for ten minutes are dropped. With a
    /// `clientNotificationToken` the request is ping-mode.
    func start(_ record: Record, clientNotificationToken: String? = nil, now: Date) -> String {
        let id = SecureRandom.token()
        var record = record
        record.ping = clientNotificationToken.map { Ping(clientNotificationToken: $0, authReqID: id) }
        records.withLock { records in
            records = records.filter { $0.value.expiresAt.addingTimeInterval(600) > now }
            records[Hex.sha256(id)] = record
        }
        return id
    }

    /// Approves (with `authTime`) or denies the newest pending, unexpired request for `userID`, optionally only one
    /// with `bindingMessage`; returns the decided request (to ping its client), or `nil` when there is none.
    func decide(userID: String, bindingMessage: String?, approvedAt authTime: Date?, now: Date) -> Record? {
        records.withLock { records in
            let candidates = records.filter { _, record in
                record.userID == userID && record.status == .pending && record.expiresAt > now
                    && (bindingMessage == nil || record.bindingMessage == bindingMessage)
            }
            guard let newest = candidates.max(by: { $0.value.expiresAt < $1.value.expiresAt })?.key else {
                return nil
            }
            records[newest]?.status = authTime.map { .approved(authTime: $0) } ?? .denied
            return records[newest]
        }
    }

    /// Makes the next poll of the newest pending request for `userID` answer `slow_down`; `false` when there is none.
    func slowDownNextPoll(userID: String, now: Date) -> Bool {
        records.withLock { records in
            let candidates = records.filter { $0.value.userID == userID && $0.value.expiresAt > now }
            guard let newest = candidates.max(by: { $0.value.expiresAt < $1.value.expiresAt })?.key else {
                return false
            }
            records[newest]?.slowDownNext = true
            return true
        }
    }

    /// One poll (CIBA Core section 11): pending, slow_down (the interval grows by 5 s), expired, denied, or the
    /// approval, which is handed out once. A ping-mode request that was decided is answered however soon after the
    /// last poll: the ping told the client to come (section 10.2), so coming early is no reason to slow it down.
    func poll(_ authReqID: String, clientID: String, now: Date) -> Result<Record, OAuthError> {
        records.withLock { records in
            let digest = Hex.sha256(authReqID)
            let invalid = OAuthError(.invalidGrant, "Invalid or expired auth_req_id.")
            guard var record = records[digest], record.clientID == clientID else { return .failure(invalid) }
            defer { records[digest] = record }
            if record.expiresAt <= now, record.status != .consumed {
                return .failure(OAuthError(.expiredToken, "The auth_req_id has expired; start a new request."))
            }
            let pinged = record.ping != nil && record.status != .pending
            let early =
                !pinged && (record.lastPolledAt.map { now.timeIntervalSince($0) < Double(record.interval) } ?? false)
            record.lastPolledAt = now
            if early || record.slowDownNext {
                record.slowDownNext = false
                record.interval += 5
                return .failure(
                    OAuthError(.slowDown, "You are polling faster than allowed; wait \(record.interval) s."))
            }
            switch record.status {
            case .pending:
                return .failure(OAuthError(.authorizationPending, "The user has yet to approve the request."))
            case .denied:
                return .failure(OAuthError(.accessDenied, "The user denied the request."))
            case .consumed:
                return .failure(invalid)
            case .approved:
                let approved = record
                record.status = .consumed
                return .success(approved)
            }
        }
    }
}
