import Foundation
import SecureStore
import SessionKitTestSupport
import Synchronization
import Testing

@testable import SessionKit
@testable import SessionKitServer

/// An announcement that arrives while a manager's first read is under way, in memory (``MemoryVersionedStore``):
/// the read comes back saying another instance holds the lease, although that instance has written its renewal
/// and announced it meanwhile. The wait must end on that announcement, not on its safety-net poll, and with the
/// announced record: no read again (under load, two such reads in a fleet of four broke an exact statement count).
///
/// In `Benchmarks/server.sh`'s storm (10,000 sessions × 4 instances) about one call in a hundred met this and
/// slept through the whole safety-net pause (a second): a 1-second tail on every storm.
@Suite("Announced during a read")
struct AnnouncedDuringReadTests {
    /// A store whose leasing read answers with what it saw when asked, once the test lets it go: a read in flight
    /// while another instance's renewal is written and announced.
    final class HeldReadStore: VersionedSecureStore, ForwardingStore {
        let base: MemoryVersionedStore
        /// Yields once a leasing read has taken its answer.
        let asked = AsyncStream<Void>.makeStream()
        /// The test yields to let the read answer.
        let release = AsyncStream<Void>.makeStream()

        init(base: MemoryVersionedStore) { self.base = base }

        func leaseIfDue(forKey key: String, dueBy threshold: Date, lease: ItemLease)
            async throws(SecureStoreError) -> LeasedRead
        {
            let answer = try await base.leaseIfDue(forKey: key, dueBy: threshold, lease: lease)
            asked.continuation.yield()
            var released = release.stream.makeAsyncIterator()
            _ = await released.next()
            return answer
        }
    }

    /// A manager over a ``HeldReadStore`` whose safety-net poll is far longer than a test may take (only an
    /// announcement can end its wait in time), and another instance that signed the user in with expired
    /// credentials and then leased the session to renew it.
    struct Fixture {
        static let expired = Credentials(
            accessToken: Secret("expired"), refreshToken: Secret("refresh"), expiresAt: Date().addingTimeInterval(-60))
        static let renewed = Credentials(
            accessToken: Secret("renewed"), refreshToken: Secret("refresh-2"),
            expiresAt: Date().addingTimeInterval(3_600))

        let memory = MemoryVersionedStore()
        let store: HeldReadStore
        let manager: SessionManager
        let other: VersionedStoreCoordinator
        /// The other instance's sign-in, as the store announced it (before the lease).
        let signedIn: VersionedItem

        init() async throws {
            store = HeldReadStore(base: memory)
            let issuer = try #require(URL(string: "https://announced.invalid/"))
            let provider = ProviderClient(configuration: try ProviderConfiguration(issuer: issuer, clientID: "tests"))
            let policy = RenewalPolicy(waitTimeout: .seconds(120), pollInterval: .seconds(20))
            manager = SessionManager(provider: provider, store: store, account: "alice", policy: policy)
            other = VersionedStoreCoordinator(
                store: memory, key: manager.storeKey, held: HeldSession(states: StateBroadcaster()), fleet: nil)
            _ = try await other.update { VersionedStoreCoordinatorTests.signedIn($0, Self.expired) }
            signedIn = try await memory.versionedData(forKey: manager.storeKey)
            let taken = try await memory.leaseIfDue(
                forKey: manager.storeKey, dueBy: Date(), lease: ItemLease(owner: "other", until: Date() + 60))
            #expect(taken.outcome == .leased)
        }

        /// Starts the manager's first call and returns once its leasing read has its answer (held elsewhere); the
        /// read answers when ``store``'s `release` is yielded.
        func callUntilAnswered() async -> Task<Credentials, any Error> {
            let call = Task { try await manager.credentials() }
            var asked = store.asked.stream.makeAsyncIterator()
            _ = await asked.next()
            return call
        }

        /// The other instance writes its renewal; returns it as the store announces it.
        func renew() async throws -> VersionedItem {
            _ = try await other.update { VersionedStoreCoordinatorTests.signedIn($0, Self.renewed) }
            return try await memory.versionedData(forKey: manager.storeKey)
        }

        /// Reads of the store so far.
        var reads: Int { memory.reads.load(ordering: .relaxed) }
    }

    /// The call's answer, or `nil` when it has none after 30 s (then it is cancelled).
    static func answer(_ call: Task<Credentials, any Error>) async throws -> Credentials? {
        try await withThrowingTaskGroup(of: Credentials?.self) { group in
            group.addTask { try await call.value }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                call.cancel()
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    @Test("a renewal announced while the first read is under way ends the wait at once, with nothing read again")
    func announcedWhileReading() async throws {
        let fixture = try await Fixture()
        let call = await fixture.callUntilAnswered()
        // Meanwhile the other instance writes its renewal and the store announces it. This manager has read no
        // version yet, so it cannot take the item then; it keeps it aside, and takes it once the read's answer gives
        // the version the announcement moves forward.
        fixture.manager.storeDidChange(to: try await fixture.renew())
        let readsBefore = fixture.reads
        fixture.store.release.continuation.yield()
        let answer = try await Self.answer(call)
        #expect(answer?.accessToken == Fixture.renewed.accessToken, "the wait slept through the announcement")
        #expect(fixture.reads == readsBefore, "the announced record was read again")
    }

    @Test("an older write announced while the first read is under way neither wakes the wait nor costs a read")
    func olderAnnouncedWhileReading() async throws {
        let fixture = try await Fixture()
        let call = await fixture.callUntilAnswered()
        // The sign-in announced late (written before the lease the read met): no news once the read's version is
        // known. Under load in `PostgresDirectoryTests`, such an announcement woke a waiter, which read again.
        fixture.manager.storeDidChange(to: fixture.signedIn)
        let readsBefore = fixture.reads
        fixture.store.release.continuation.yield()
        // Time enough for a woken wait to read; this one sleeps on until the renewal is announced.
        try await Task.sleep(for: .milliseconds(300))
        #expect(fixture.reads == readsBefore, "an older write's announcement woke the wait, which read again")
        let renewal = try await fixture.renew()
        let readsAfterRenewal = fixture.reads
        fixture.manager.storeDidChange(to: renewal)
        let answer = try await Self.answer(call)
        #expect(answer?.accessToken == Fixture.renewed.accessToken, "the wait slept through the renewal's announcement")
        #expect(fixture.reads == readsAfterRenewal)
    }
}
