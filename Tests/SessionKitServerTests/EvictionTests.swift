import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitPostgres
import SessionKitServer
import SessionKitTesting
import Synchronization
import Testing

/// A renewal the store could not save lives only in its manager's memory; a flood of session ids that name no
/// session must neither push that manager out of the cache nor take places in it.
///
/// The store is a memory store behind a switch that refuses writes: the failure must fall exactly between the
/// provider's answer and the save, which a real database cannot be made to do on cue. The provider is the real
/// emulator, with rotation and reuse detection, so a spent refresh token sent again would sign the user out.
@Suite("SessionDirectory: unknown ids and unsaved renewals")
struct EvictionTests {
    @Test("an unsaved renewal outlives 500 unknown ids and 10 new sessions in a cache of 4; saved, not re-sent")
    func unsavedRenewalSurvivesFlood() async throws {
        try await LiveEmulator.with { emulator in
            let store = SwitchableStore(MemoryStore(service: "tests.eviction.\(UUID().uuidString)"))
            let time = TestClock()
            let provider = ProviderClient(configuration: try emulator.providerConfiguration(), clock: time.clock)
            let sessions = SessionDirectory(
                provider: provider, store: store, capacity: 4, policy: RenewalPolicy(retryDelay: .milliseconds(10)),
                clock: time.clock)
            let signedIn = try await SessionDirectoryTests.signIn(emulator)
            let id = try await sessions.create(signedIn)
            time.advance(by: (signedIn.expiresAt ?? Date()).timeIntervalSinceNow + 1)
            try await emulator.controls.resetRequestCounts()
            // The renewal's answer arrives while the store refuses writes: the grant goes out under the lease,
            // then the database "goes down".
            try await emulator.controls.inject(AuthEmulator.Fault.latency(1).only(.refreshToken), into: .token)
            let renewal = Task { try await sessions.credentials(for: id, minTTL: 60) }
            // Wait until the refresh request is at the provider (held there 1 s), not for a fixed time: on a
            // loaded machine the lease may not be written yet after any fixed sleep.
            let sent = ContinuousClock.now
            while try await emulator.controls.requestCounts()[.refreshToken] == 0 {
                try #require(ContinuousClock.now - sent < .seconds(10), "the renewal never reached the provider")
                try await Task.sleep(for: .milliseconds(10))
            }
            store.refusesWrites = true
            await #expect(throws: SessionKitError.self) { try await renewal.value }
            try await emulator.controls.clearFaults()
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            // A flood of ids that name no session.
            for _ in 0..<500 {
                await #expect(throws: SessionKitError.self) { try await sessions.credentials(for: SessionID()) }
            }
            #expect(sessions.cachedCount <= 1, "unknown ids took no place in memory (\(sessions.cachedCount))")
            store.refusesWrites = false
            // Sessions signed in meanwhile fill the cache past its capacity: the least recently used go, never the
            // manager that holds the unsaved renewal.
            for _ in 0..<10 { _ = try await sessions.create(signedIn) }
            #expect(sessions.cachedCount == 4, "the cache holds its capacity (\(sessions.cachedCount))")
            let renewed = try await sessions.credentials(for: id, minTTL: 60)
            #expect(renewed.accessToken != signedIn.accessToken)
            #expect(
                try await emulator.controls.requestCounts()[.refreshToken] == 1,
                "the renewal held in memory was saved; the spent refresh token was not sent again")
        }
    }
}

/// A store that refuses every write while ``refusesWrites`` is set, as an unreachable database does.
final class SwitchableStore: SecureStore, Sendable {
    private let base: MemoryStore
    private let refusing = Atomic<Bool>(false)

    init(_ base: MemoryStore) { self.base = base }

    var refusesWrites: Bool {
        get { refusing.load(ordering: .relaxed) }
        set { refusing.store(newValue, ordering: .relaxed) }
    }

    var service: String { base.service }

    private func check() throws(SecureStoreError) {
        if refusesWrites { throw SecureStoreError(code: .unavailable, message: "the test store refuses writes") }
    }

    func data(forKey key: String) throws(SecureStoreError) -> Data? { try base.data(forKey: key) }
    func setData(_ data: Data, forKey key: String) throws(SecureStoreError) {
        try check()
        try base.setData(data, forKey: key)
    }
    func deleteItem(forKey key: String) throws(SecureStoreError) {
        try check()
        try base.deleteItem(forKey: key)
    }
    func deleteAll() throws(SecureStoreError) {
        try check()
        try base.deleteAll()
    }
    func keys() throws(SecureStoreError) -> [String] { try base.keys() }
    func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
        try check()
        return try base.update(forKey: key, transform)
    }
}
