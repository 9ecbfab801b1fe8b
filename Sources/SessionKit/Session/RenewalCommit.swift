#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What becomes of renewed credentials once the provider has answered, decided as a value: the record to write,
/// the refresh token to revoke when the renewal is not written, and whether a failed write is tried again or the
/// renewal set aside. `SessionManager` carries the decisions out, for a renewal it leased and for one left
/// unsaved (here, or by a process that ended, in the store's journal); they are tested on their own, as
/// ``RenewalDecisions`` are for the steps before the grant.
///
/// The rules:
/// - A renewal is written only over the record it was leased on: the same generation and, for a lease in hand,
///   that lease still on it. Anything else that wrote the record meanwhile (a sign-out, a new sign-in, another
///   instance that took the lease over once this one lapsed) wins, and the renewal is dropped.
/// - A dropped renewal's refresh token is revoked, unless the store holds that very token or it is the one the
///   renewal replaced (a provider that does not rotate): revoking either would end the stored session.
/// - A write that fails for a passing reason (the store locked or unreachable) is tried again, each time after
///   a longer pause; then, or at once for a store that cannot be written, the renewal is set aside (in memory
///   and the store's journal) and the call fails with a retryable error. The refresh token in it may be the only
///   one the provider still accepts, so it is never sent again and never dropped for a store's failure.
/// - A session that ended while it was renewed (signed out) stays ended: the renewal was dropped, and the
///   call fails as signed out, with nothing set aside.
struct RenewalCommit {
    /// An access token for another API that a renewal brought, stored beside the session's credentials.
    struct APIToken: Codable, Sendable, Equatable {
        /// Its key in ``SessionRecord/apiCredentials``.
        var key: String
        /// The access token, without refresh or ID token (those are the session's).
        var credentials: Credentials
    }

    /// What the renewal brought: the session's credentials as they are to be stored (for another API's renewal,
    /// the earlier ones with the rotated refresh token).
    let renewed: Credentials
    /// The other API's token the renewal was for, if it was.
    var api: APIToken? = nil
    /// The credentials it replaces, when known (not for a renewal read back from the journal).
    let replacing: Credentials?
    /// The record's generation when the renewal's lease was last written.
    let leasedGeneration: UInt64
    /// The holder whose lease must still be on the record; `nil` for a renewal set aside earlier, whose lease may
    /// have lapsed since (the generation alone says that nothing else wrote).
    let owner: String?

    /// What to do after a write that failed.
    enum AfterFailure: Equatable {
        /// Write again after this pause.
        case retry(after: Duration)
        /// Keep the renewal aside and fail the call with a retryable error.
        case setAside
        /// The session ended meanwhile and the renewal was dropped: fail with the error as it is.
        case fail
    }

    /// The record to write in place of `stored`, or `nil` when the renewal no longer belongs there.
    func record(over stored: SessionRecord) -> SessionRecord? {
        guard stored.generation == leasedGeneration else { return nil }
        if let owner, stored.renewal?.owner != owner { return nil }
        var next = stored
        next.credentials = renewed
        if let api { next.apiCredentials[api.key] = api.credentials }
        next.renewal = nil
        return next
    }

    /// The refresh token to revoke once the renewal was dropped and the store holds `stored`, or `nil`.
    func tokenToRevoke(whenStoreHolds stored: Credentials?) -> Secret? {
        guard let rotated = renewed.refreshToken, rotated != replacing?.refreshToken, rotated != stored?.refreshToken
        else { return nil }
        return rotated
    }

    /// What follows the `attempt`-th failed write (1 for the first) with `code`, under `policy`.
    static func afterFailure(_ code: SessionKitError.Code, attempt: Int, policy: RenewalPolicy) -> AfterFailure {
        if code == .signInRequired { return .fail }
        guard code == .storeUnavailable, attempt <= policy.transientRetries + 1 else { return .setAside }
        return .retry(after: policy.retryDelay * attempt)
    }
}
