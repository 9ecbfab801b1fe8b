import AuthEmulator
import Foundation
import SecureStore
import SessionKitPostgresTestSupport
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

@testable import SessionKit
@testable import SessionKitPostgres
@testable import SessionKitServer

/// `SessionManager` over a versioned store whose conditional writes keep being refused, as under heavy contention:
/// it must never fall back to the store's plain `update`, whose transform cannot see a lease another instance took
/// by reading (those live beside the record), and so could write over it and send the same refresh token again.
@Suite("SessionManager under endless write contention", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct ContendedWriteTests {
    /// The PostgreSQL store, except that while `contended` every conditional write is refused as one that met a
    /// row changed since its snapshot (`.refused(current: nil)`); counts those and the plain updates.
    final class ContendedStore: VersionedSecureStore, ForwardingStore {
        let base: PostgresSessionStore
        let contended = Atomic<Bool>(false)
        let refused = Atomic<Int>(0)
        let updates = Atomic<Int>(0)

        init(_ base: PostgresSessionStore) { self.base = base }

        nonisolated(nonsending) func update(forKey key: String, _ transform: (Data?) throws -> Data?) async throws
            -> Data?
        {
            updates.add(1, ordering: .relaxed)
            return try await base.update(forKey: key, transform)
        }
        func replace(forKey key: String, ifVersion version: UInt64, with data: Data?, dueAt: Date?)
            async throws(SecureStoreError) -> VersionedWrite
        {
            guard !contended.load(ordering: .relaxed) else {
                refused.add(1, ordering: .relaxed)
                return .refused(current: nil)
            }
            return try await base.replace(forKey: key, ifVersion: version, with: data, dueAt: dueAt)
        }
    }

    @Test("every conditional write refused: a retryable error after a bounded number, no plain update, no grant sent")
    func neverFallsBackToUpdate() async throws {
        try await LiveEmulator.with { emulator in
            let store = ContendedStore(try await TestPostgres.store())
            let manager = SessionManager(
                provider: ProviderClient(configuration: try emulator.providerConfiguration()), store: store,
                account: "alice")
            let credentials = try await manager.provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            try await manager.store(credentials)
            try await emulator.controls.resetRequestCounts()
            store.contended.store(true, ordering: .relaxed)
            do {
                _ = try await manager.renew()
                Issue.record("a renewal went on without its lease written")
            } catch let error as SessionKitError {
                #expect(error.code == .storeUnavailable && error.isRetryable, "\(error)")
                #expect(error.message.contains("changed"), "\(error.message)")
            }
            #expect(store.refused.load(ordering: .relaxed) == VersionedStoreCoordinator.maximumRefusals)
            #expect(store.updates.load(ordering: .relaxed) == 0, "the plain update cannot see leases taken by reads")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 0, "no grant without a lease")
            // Once the contention ends, the session is there and renews.
            store.contended.store(false, ordering: .relaxed)
            #expect(try await manager.renew().accessToken != credentials.accessToken)
        }
    }
}
