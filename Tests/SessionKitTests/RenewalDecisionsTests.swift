import Foundation
import Testing

@testable import SessionKit

/// The renewal's decisions as a value: which step follows which record, without a store or a provider.
@Suite("Renewal decisions")
struct RenewalDecisionsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Credentials received 100 s ago that live 300 s in all, with or without a refresh token.
    static func credentials(expiresIn seconds: TimeInterval, refresh: Bool = true, scope: String? = nil)
        -> Credentials
    {
        Credentials(
            accessToken: Secret("at"), refreshToken: refresh ? Secret("rt") : nil,
            expiresAt: now.addingTimeInterval(seconds), scope: scope, receivedAt: now.addingTimeInterval(seconds - 300))
    }

    static func record(_ credentials: Credentials?, generation: UInt64 = 7, leasedBy owner: String? = nil)
        -> SessionRecord
    {
        var record = SessionRecord()
        record.generation = generation
        record.credentials = credentials
        record.renewal = owner.map {
            RenewalLease(
                owner: $0, pid: 1, host: "another-host", startedAt: now, expiresAt: now.addingTimeInterval(30))
        }
        return record
    }

    static func decisions(
        minTTL: TimeInterval = 60, scope: String? = nil, force: Bool = false, journal: Bool = false,
        fresh: SessionRecord? = nil, leased: Bool = false
    ) -> RenewalDecisions {
        RenewalDecisions(
            minTTL: minTTL, scope: scope, force: force, ownerID: "me", keepsJournal: journal, fresh: fresh,
            leased: leased)
    }

    @Test("a record leased as it was read: renewed under that lease at once, with no journal read and no other lease")
    func leasedByRead() {
        let expired = Self.credentials(expiresIn: -5)
        var leased = Self.decisions(
            journal: true, fresh: Self.record(expired, generation: 4, leasedBy: "me"), leased: true)
        #expect(leased.next(now: Self.now) == .renewUnderLease(renewing: expired, leasedGeneration: 4))
        // A lease of this manager's that the read did not take (left by an earlier call): the usual way.
        var left = Self.decisions(journal: true, fresh: Self.record(expired, generation: 4, leasedBy: "me"))
        #expect(left.next(now: Self.now) == .settleJournal)
        // The read's lease is gone by the time it is looked at (lapsed): the usual way too, journal first.
        var lapsed = Self.record(expired, generation: 4, leasedBy: "me")
        lapsed.renewal?.expiresAt = Self.now.addingTimeInterval(-1)
        var late = Self.decisions(journal: true, fresh: lapsed, leased: true)
        #expect(late.next(now: Self.now) == .settleJournal)
        // Another's lease on the record read is never taken for this call's.
        var theirs = Self.decisions(fresh: Self.record(expired, generation: 4, leasedBy: "them"), leased: true)
        #expect(theirs.next(now: Self.now) == .waitForOther(afterGeneration: 4))
        // Once only: a record read later is decided as any other.
        var again = Self.decisions(fresh: Self.record(expired, generation: 4, leasedBy: "me"), leased: true)
        _ = again.next(now: Self.now)
        again.read(Self.record(expired, generation: 4, leasedBy: "me"))
        #expect(again.next(now: Self.now) == .takeLease(renewing: expired, expecting: 4))
    }

    @Test("another API's token: served when valid, else renewed with the session's refresh token, valid or not")
    func anotherAPI() {
        let target = RenewalTarget.api(.init(audience: "https://api.example/", scope: "b a"))
        #expect(target == .api(.init(audience: "https://api.example/", scope: "a  b a")), "scopes as a set")
        let session = Self.credentials(expiresIn: 200)
        var record = Self.record(session, generation: 4)
        var decisions = RenewalDecisions(
            minTTL: 60, scope: nil, target: target, force: false, ownerID: "me", keepsJournal: false, fresh: record)
        #expect(decisions.next(now: Self.now) == .takeLease(renewing: session, expecting: 4), "none yet")
        let api = Self.credentials(expiresIn: 200, refresh: false)
        record.apiCredentials["https://api.example/ a b"] = api
        decisions.read(record)
        #expect(decisions.next(now: Self.now) == .finish(api))
        record.apiCredentials["https://api.example/ a b"] = Self.credentials(expiresIn: 30, refresh: false)
        record.credentials = Self.credentials(expiresIn: -5)
        decisions.read(record)
        #expect(decisions.next(now: Self.now) == .takeLease(renewing: Self.credentials(expiresIn: -5), expecting: 4))
        record.credentials = Self.credentials(expiresIn: 200, refresh: false)
        decisions.read(record)
        #expect(decisions.next(now: Self.now) == .cannotRenew, "no refresh token in the session")
    }

    @Test("with nothing in hand it reads; valid credentials are returned; none is no session")
    func readsThenFinishes() {
        var decisions = Self.decisions()
        #expect(decisions.next(now: Self.now) == .read)
        let valid = Self.credentials(expiresIn: 200)
        decisions.read(Self.record(valid))
        #expect(decisions.next(now: Self.now) == .finish(valid))
        var empty = Self.decisions(fresh: Self.record(nil))
        #expect(empty.next(now: Self.now) == .noSession)
    }

    @Test("expired without a refresh token: cannot renew; with one: the lease on the generation read")
    func expired() {
        var stuck = Self.decisions(fresh: Self.record(Self.credentials(expiresIn: -5, refresh: false)))
        #expect(stuck.next(now: Self.now) == .cannotRenew)
        let expired = Self.credentials(expiresIn: -5)
        var decisions = Self.decisions(fresh: Self.record(expired, generation: 9))
        #expect(decisions.next(now: Self.now) == .takeLease(renewing: expired, expecting: 9))
    }

    @Test("another instance's active lease: wait without writing, then take what the wait brought")
    func waitsForAnotherInstance() {
        let expired = Self.credentials(expiresIn: -5)
        var decisions = Self.decisions(journal: true, fresh: Self.record(expired, generation: 3, leasedBy: "other"))
        #expect(decisions.next(now: Self.now) == .waitForOther(afterGeneration: 3))
        let renewed = Self.credentials(expiresIn: 300)
        decisions.waitEnded(with: Self.record(renewed, generation: 5))
        #expect(decisions.next(now: Self.now) == .finish(renewed), "no read after the wait, no journal")
    }

    @Test("after a wait, a token shorter-lived than minTTL is accepted; without a wait it is renewed")
    func minTTLLongerThanTokensLive() {
        let shortLived = Self.credentials(expiresIn: 200)  // lives 300 s in all, asked for 600
        var waited = Self.decisions(minTTL: 600, fresh: Self.record(nil, leasedBy: "other"))
        waited.read(Self.record(Self.credentials(expiresIn: -5), leasedBy: "other"))
        _ = waited.next(now: Self.now)
        waited.waitEnded(with: Self.record(shortLived, generation: 8))
        #expect(waited.next(now: Self.now) == .finish(shortLived))
        var fresh = Self.decisions(minTTL: 600, fresh: Self.record(shortLived, generation: 8))
        #expect(fresh.next(now: Self.now) == .takeLease(renewing: shortLived, expecting: 8))
    }

    /// A record whose lease lapsed: its holder may have set its renewal aside in the journal.
    static func lapsed(_ credentials: Credentials, generation: UInt64) -> SessionRecord {
        var record = Self.record(credentials, generation: generation, leasedBy: "crashed")
        record.renewal?.expiresAt = now.addingTimeInterval(-1)
        return record
    }

    @Test("the journal is read once, only on the way to a grant, only under a lease left; a saved entry is re-read")
    func journalOnlyBeforeAGrant() {
        let valid = Self.credentials(expiresIn: 200)
        var served = Self.decisions(journal: true, fresh: Self.lapsed(valid, generation: 4))
        #expect(served.next(now: Self.now) == .finish(valid), "no journal read for credentials that serve")
        let expired = Self.credentials(expiresIn: -5)
        var unleased = Self.decisions(journal: true, fresh: Self.record(expired, generation: 4))
        #expect(
            unleased.next(now: Self.now) == .takeLease(renewing: expired, expecting: 4),
            "a record without a lease was written since any entry was set aside")
        var decisions = Self.decisions(journal: true, fresh: Self.lapsed(expired, generation: 4))
        #expect(decisions.next(now: Self.now) == .settleJournal)
        decisions.journalSettled(wrote: false)
        #expect(decisions.next(now: Self.now) == .takeLease(renewing: expired, expecting: 4))
        var saved = Self.decisions(journal: true, fresh: Self.lapsed(expired, generation: 4))
        _ = saved.next(now: Self.now)
        saved.journalSettled(wrote: true)
        #expect(saved.next(now: Self.now) == .read)
        saved.read(Self.record(valid, generation: 5))
        #expect(saved.next(now: Self.now) == .finish(valid))
    }

    @Test("a forced renewal renews valid credentials, and stops being forced once a lease is refused")
    func forced() {
        let valid = Self.credentials(expiresIn: 200)
        var decisions = Self.decisions(force: true, fresh: Self.record(valid, generation: 2, leasedBy: "other"))
        #expect(decisions.next(now: Self.now) == .takeLease(renewing: valid, expecting: 2))
        let renewed = Self.credentials(expiresIn: 290)
        decisions.leaseRefused(stored: Self.record(renewed, generation: 3))
        #expect(!decisions.forced)
        #expect(decisions.next(now: Self.now) == .finish(renewed))
    }

    @Test("a refused lease whose record shows another's active lease leads to a wait; another scope renews")
    func refusedLeaseAndScope() {
        let expired = Self.credentials(expiresIn: -5)
        var decisions = Self.decisions(fresh: Self.record(expired, generation: 1))
        _ = decisions.next(now: Self.now)
        decisions.leaseRefused(stored: Self.record(expired, generation: 2, leasedBy: "other"))
        #expect(decisions.next(now: Self.now) == .waitForOther(afterGeneration: 2))
        let narrow = Self.credentials(expiresIn: 200, scope: "openid")
        var scoped = Self.decisions(scope: "openid profile", fresh: Self.record(narrow, generation: 6))
        #expect(scoped.next(now: Self.now) == .takeLease(renewing: narrow, expecting: 6))
    }
}
