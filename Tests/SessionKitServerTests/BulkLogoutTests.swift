import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitServer
import SessionKitTesting
import Synchronization
import Testing

/// `SessionDirectory.logout(accounts:revoke:maxConcurrent:)`: many sessions ended at once, a bounded number in flight,
/// and a store failure that starts no more and keeps the sessions not reached.
@Suite("SessionDirectory: bulk logout")
struct BulkLogoutTests {
    @Test("100 sessions end, with more than one and at most maxConcurrent store writes under way at once")
    func boundedConcurrency() async throws {
        try await LiveEmulator.with { emulator in
            let store = SlowStore()
            let (directory, ids) = try await Self.sessions(100, emulator: emulator, store: store)
            store.resetCounts()
            let ended = try await directory.logout(accounts: ids.map(\.account), revoke: false, maxConcurrent: 8)
            #expect(ended == 100)
            #expect(store.peak.load(ordering: .relaxed) <= 8, "never more than 8 in flight")
            #expect(store.peak.load(ordering: .relaxed) > 1, "not one at a time")
            for id in ids { #expect(try await directory.storedCredentials(for: id) == nil) }
            // Again: nothing left to end.
            #expect(try await directory.logout(accounts: ids.map(\.account), revoke: false) == 0)
        }
    }

    @Test("a store failure throws storeUnavailable, starts no more logouts, and a second call ends the rest")
    func failureKeepsTheRest() async throws {
        try await LiveEmulator.with { emulator in
            let store = SlowStore()
            let (directory, ids) = try await Self.sessions(100, emulator: emulator, store: store)
            store.resetCounts()
            store.failFrom.store(10, ordering: .relaxed)
            do throws(SessionKitError) {
                try await directory.logout(accounts: ids.map(\.account), revoke: false, maxConcurrent: 4)
                Issue.record("the bulk logout succeeded over a failing store")
            } catch {
                #expect(error.code == .storeUnavailable)
            }
            #expect(store.started.load(ordering: .relaxed) < 100, "no more logouts started after the failure")
            var kept = 0
            for id in ids {
                if try await directory.storedCredentials(for: id) != nil { kept += 1 }
            }
            #expect(kept > 0 && kept < 100)
            store.failFrom.store(.max, ordering: .relaxed)
            #expect(try await directory.logout(accounts: ids.map(\.account), revoke: false) == kept)
            for id in ids { #expect(try await directory.storedCredentials(for: id) == nil) }
        }
    }

    /// `count` sessions of one sign-in in a directory over `store`.
    static func sessions(_ count: Int, emulator: AuthEmulator, store: SlowStore) async throws
        -> (SessionDirectory, [SessionID])
    {
        let provider = ProviderClient(configuration: try emulator.providerConfiguration())
        let directory = SessionDirectory(provider: provider, store: store)
        let credentials = try await provider.signIn(
            username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
        var ids: [SessionID] = []
        for _ in 0..<count { ids.append(try await directory.create(credentials)) }
        return (directory, ids)
    }
}

/// A memory store whose atomic updates take a few milliseconds, counting how many are under way at once, and failing
/// every update from the `failFrom`th (counted from 0 after ``resetCounts()``).
final class SlowStore: AsyncSecureStore {
    private let base = SynchronousStoreAdapter(MemoryStore(service: "tests.bulk-logout"))
    let started = Atomic(0)
    let inFlight = Atomic(0)
    let peak = Atomic(0)
    let failFrom = Atomic(Int.max)

    var service: String { base.service }

    func resetCounts() {
        started.store(0, ordering: .relaxed)
        peak.store(0, ordering: .relaxed)
    }

    func data(forKey key: String) async throws(SecureStoreError) -> Data? { try await base.data(forKey: key) }
    func setData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        try await base.setData(data, forKey: key)
    }
    func deleteItem(forKey key: String) async throws(SecureStoreError) { try await base.deleteItem(forKey: key) }
    func deleteAll() async throws(SecureStoreError) { try await base.deleteAll() }
    func keys() async throws(SecureStoreError) -> [String] { try await base.keys() }

    nonisolated(nonsending) func update(forKey key: String, _ transform: (Data?) throws -> Data?) async throws -> Data?
    {
        let number = started.add(1, ordering: .relaxed).oldValue
        let now = inFlight.add(1, ordering: .relaxed).newValue
        peak.max(now, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        try await Task.sleep(for: .milliseconds(5))
        guard number < failFrom.load(ordering: .relaxed) else {
            throw SecureStoreError(code: .unavailable, message: "the test store fails from here on")
        }
        return try await base.update(forKey: key, transform)
    }
}
