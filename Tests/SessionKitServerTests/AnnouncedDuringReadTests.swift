import Foundation
import SecureStore
import SessionKitTestSupport
import Testing

@testable import SessionKit
@testable import SessionKitServer

/// An announcement that arrives while a manager's first read is under way, in memory (``MemoryVersionedStore``):
/// the read comes back saying another instance holds the lease, although that instance has written its renewal
/// and announced it meanwhile. The wait must end on that announcement, not on its safety-net poll.
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

    @Test("a renewal announced while the first read is under way ends the wait at once")
    func announcedWhileReading() async throws {
        let memory = MemoryVersionedStore()
        let store = HeldReadStore(base: memory)
        let issuer = try #require(URL(string: "https://announced.invalid/"))
        let provider = ProviderClient(configuration: try ProviderConfiguration(issuer: issuer, clientID: "tests"))
        // A safety-net poll far longer than the test may take: only the announcement can end the wait in time.
        let policy = RenewalPolicy(waitTimeout: .seconds(120), pollInterval: .seconds(20))
        let manager = SessionManager(provider: provider, store: store, account: "alice", policy: policy)
        let other = VersionedStoreCoordinator(
            store: memory, key: manager.storeKey, held: HeldSession(states: StateBroadcaster()), fleet: nil)
        let expired = Credentials(
            accessToken: Secret("expired"), refreshToken: Secret("refresh"), expiresAt: Date().addingTimeInterval(-60))
        let renewed = Credentials(
            accessToken: Secret("renewed"), refreshToken: Secret("refresh-2"),
            expiresAt: Date().addingTimeInterval(3_600))
        // The expired session, then the other instance's lease on it.
        _ = try await other.update { VersionedStoreCoordinatorTests.signedIn($0, expired) }
        let taken = try await memory.leaseIfDue(
            forKey: manager.storeKey, dueBy: Date(), lease: ItemLease(owner: "other", until: Date() + 60))
        #expect(taken.outcome == .leased)

        let call = Task { try await manager.credentials() }
        var asked = store.asked.stream.makeAsyncIterator()
        _ = await asked.next()
        // The read has its answer (held elsewhere); meanwhile the other instance writes its renewal and the store
        // announces it. This manager has read no version yet, so it does not take the item: it must read again.
        _ = try await other.update { VersionedStoreCoordinatorTests.signedIn($0, renewed) }
        manager.storeDidChange(to: try await memory.versionedData(forKey: manager.storeKey))
        store.release.continuation.yield()

        let answer = try await withThrowingTaskGroup(of: Credentials?.self) { group in
            group.addTask { try await call.value }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                call.cancel()
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        #expect(answer?.accessToken == renewed.accessToken, "the wait slept through the announcement")
    }
}
