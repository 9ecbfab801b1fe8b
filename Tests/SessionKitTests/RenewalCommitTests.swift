import Foundation
import Testing

@testable import SessionKit

/// What becomes of a renewal once the provider answered, as a value: the record written, the token revoked, the
/// failed write tried again or set aside, without a store or a provider.
@Suite("Renewal commit")
struct RenewalCommitTests {
    typealias Given = RenewalDecisionsTests

    static let current = Given.credentials(expiresIn: -5)
    static let renewed = Credentials(
        accessToken: Secret("at-2"), refreshToken: Secret("rt-2"), expiresAt: Given.now.addingTimeInterval(300),
        scope: nil, receivedAt: Given.now)

    static func plan(owner: String? = "me", replacing: Credentials? = current) -> RenewalCommit {
        RenewalCommit(renewed: renewed, replacing: replacing, leasedGeneration: 8, owner: owner)
    }

    @Test(
        "over the record it was leased on, with the lease still its own: the renewal, the lease cleared, the rest kept")
    func writesOverItsLease() throws {
        var stored = Given.record(Self.current, generation: 8, leasedBy: "me")
        stored.profile = UserProfile(claims: ["sub": .string("auth0|alice")])
        let next = try #require(Self.plan().record(over: stored))
        #expect(next.credentials == Self.renewed && next.renewal == nil)
        #expect(next.generation == 8 && next.profile == stored.profile, "the store moves the generation, not the plan")
    }

    @Test("a record written since, or a lease now someone else's or gone: nothing is written")
    func refusesAnotherWrite() {
        #expect(Self.plan().record(over: Given.record(Self.current, generation: 9, leasedBy: "me")) == nil)
        #expect(Self.plan().record(over: Given.record(Self.current, generation: 8, leasedBy: "other")) == nil)
        #expect(Self.plan().record(over: Given.record(Self.current, generation: 8)) == nil)
        #expect(Self.plan().record(over: Given.record(nil, generation: 9)) == nil, "signed out meanwhile")
    }

    @Test("a renewal set aside earlier is written over its generation whatever the lease says now, and only then")
    func settlesOnGenerationAlone() {
        let settle = Self.plan(owner: nil, replacing: nil)
        #expect(settle.record(over: Given.record(Self.current, generation: 8))?.credentials == Self.renewed)
        #expect(settle.record(over: Given.record(Self.current, generation: 8, leasedBy: "other")) != nil)
        #expect(settle.record(over: Given.record(Self.current, generation: 10)) == nil)
    }

    @Test("a dropped renewal's refresh token is revoked, unless the store holds it or it is the one it replaced")
    func revocation() {
        #expect(Self.plan().tokenToRevoke(whenStoreHolds: nil) == Secret("rt-2"))
        #expect(Self.plan().tokenToRevoke(whenStoreHolds: Self.current) == Secret("rt-2"))
        #expect(Self.plan().tokenToRevoke(whenStoreHolds: Self.renewed) == nil, "the store holds that very token")
        let unrotated = RenewalCommit(
            renewed: Self.current, replacing: Self.current, leasedGeneration: 8, owner: "me")
        #expect(unrotated.tokenToRevoke(whenStoreHolds: nil) == nil, "a provider that does not rotate")
        var withoutRefresh = Self.renewed
        withoutRefresh.refreshToken = nil
        let plain = RenewalCommit(renewed: withoutRefresh, replacing: Self.current, leasedGeneration: 8, owner: "me")
        #expect(plain.tokenToRevoke(whenStoreHolds: nil) == nil)
    }

    @Test(
        "an unavailable store is tried again with longer pauses, then the renewal is set aside; a sign-out meanwhile fails as is"
    )
    func failedWrites() {
        let policy = RenewalPolicy(transientRetries: 1, retryDelay: .milliseconds(200))
        let unavailable = (1...3).map { RenewalCommit.afterFailure(.storeUnavailable, attempt: $0, policy: policy) }
        #expect(unavailable == [.retry(after: .milliseconds(200)), .retry(after: .milliseconds(400)), .setAside])
        #expect(RenewalCommit.afterFailure(.storeCorrupted, attempt: 1, policy: policy) == .setAside)
        #expect(
            RenewalCommit.afterFailure(.signInRequired, attempt: 1, policy: policy) == .fail, "signed out meanwhile")
    }
}
