#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a renewal does next, decided from what it has seen, as a value: the slow path of
/// `SessionManager.credentials(minTTL:scope:)` asks ``next(now:)`` for a step, carries it out (a store read,
/// a wait, a lease), and tells the result back. The decisions are tested on their own, without a store or a
/// provider; the actor only does what they say.
///
/// The rules:
/// - Credentials that satisfy the call are returned, unless the renewal was forced.
/// - After waiting for another instance's renewal, its result is returned even if it lives shorter than
///   `minTTL`: a `minTTL` longer than the provider's tokens live must not send every waiter to renew again.
/// - Another instance's active lease means waiting for its result, never a write.
/// - The store's journal (a renewal set aside by a process that could not save it) is read once, only when a
///   grant is about to be sent, and only when the record still carries a lease: a process that sets a renewal
///   aside could not write the record either, so its lease is still there. A record without one was written
///   since, and any entry left is stale.
/// - A record that came with a lease this call took as it read it (a first call's read of a due session) is
///   renewed under that lease at once: no journal (the lease was taken from a record with none on it), no other
///   lease.
struct RenewalDecisions {
    /// One step of a renewal.
    enum Step: Equatable {
        /// Read the record from the store, and report it with ``read(_:)``.
        case read
        /// Return these credentials.
        case finish(Credentials)
        /// No session is stored.
        case noSession
        /// The access token no longer serves and there is no refresh token.
        case cannotRenew
        /// Wait for another instance's renewal to move the record past `generation`, and report the record that
        /// ended the wait with ``waitEnded(with:)``.
        case waitForOther(afterGeneration: UInt64)
        /// Save a renewal set aside in the journal, if any, and report with ``journalSettled(wrote:)``.
        case settleJournal
        /// Take the lease on the record of `generation` and renew with the session's credentials `current` (for
        /// any target: they hold the refresh token); report a refusal with
        /// ``leaseRefused(stored:)``.
        case takeLease(renewing: Credentials, expecting: UInt64)
        /// Renew with the session's credentials `current` under the lease the read took on the record of
        /// `generation`.
        case renewUnderLease(renewing: Credentials, leasedGeneration: UInt64)
    }

    let minTTL: TimeInterval
    let scope: String?
    /// What is renewed: the session's access token, or another API's from the same refresh token.
    let target: RenewalTarget
    /// This instance's lease owner id.
    let ownerID: String
    /// Whether the caller asked to renew whatever the expiry; cleared once another renewal was seen.
    private(set) var forced: Bool
    private var waited = false
    private var journalRead: Bool
    /// Whether the record in hand came with a lease this call took as it read it.
    private var leasedByRead: Bool
    /// The record to decide on; `nil` until one is read.
    private var record: SessionRecord?

    /// Decisions for one call. `fresh` is a record read just now, if any, and `leased` says whether that read
    /// took a lease on it for this call; `keepsJournal` says whether the store has a journal to read before a
    /// grant.
    init(
        minTTL: TimeInterval, scope: String?, target: RenewalTarget = .session, force: Bool, ownerID: String,
        keepsJournal: Bool, fresh: SessionRecord?, leased: Bool = false
    ) {
        self.leasedByRead = leased && fresh != nil
        self.minTTL = minTTL
        self.scope = scope
        self.target = target
        self.ownerID = ownerID
        self.forced = force
        self.journalRead = !keepsJournal
        self.record = fresh
    }

    /// The next step, given the record in hand.
    mutating func next(now: Date) -> Step {
        guard let record else { return .read }
        guard let session = record.credentials else { return .noSession }
        if leasedByRead {
            leasedByRead = false
            if session.canRenew, let lease = record.renewal, lease.owner == ownerID, lease.isActive(at: now) {
                return .renewUnderLease(renewing: session, leasedGeneration: record.generation)
            }
        }
        if !forced, let current = target.credentials(in: record) {
            let renewedMeanwhile =
                waited && current.livesShorter(than: minTTL) && current.isValid(now: now)
                && (scope == nil || scope == current.scope)
            if renewedMeanwhile || current.satisfies(minTTL: minTTL, scope: scope, now: now) {
                return .finish(current)
            }
        }
        // Whatever the target, the session's refresh token renews it.
        guard session.canRenew else { return .cannotRenew }
        if !forced, let lease = record.renewal, lease.owner != ownerID, lease.isActive(at: now) {
            self.record = nil
            return .waitForOther(afterGeneration: record.generation)
        }
        if !journalRead, record.renewal != nil {
            journalRead = true
            return .settleJournal
        }
        return .takeLease(renewing: session, expecting: record.generation)
    }

    /// The record the store holds now.
    mutating func read(_ record: SessionRecord) {
        self.record = record
    }

    /// The wait for another renewal ended with `record` (moved on, or its lease lapsed).
    mutating func waitEnded(with record: SessionRecord) {
        waited = true
        self.record = record
    }

    /// The journal held a renewal and it was saved (`wrote`): the record must be read again.
    mutating func journalSettled(wrote: Bool) {
        if wrote { record = nil }
    }

    /// The lease was not taken: the record had changed, or another instance holds an active lease. Either way
    /// another renewal may already serve this call, so a forced renewal is no longer forced.
    mutating func leaseRefused(stored: SessionRecord) {
        forced = false
        record = stored
    }
}
