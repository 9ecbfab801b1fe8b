import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTesting
import Synchronization
import Testing

/// A command-line tool's fast path reads the record with a manager built to send nothing; when the token is due, the
/// manager that renews takes that record over (`SessionManager.takeOver(_:)`) instead of reading the store again.
@Suite("Taking over a record read just now: the renewal of sessionctl token")
struct TakeOverTests {
    @Test("the renewal starts from the record handed over: one read in all, then the lease and the commit")
    func oneRead() async throws {
        try await LiveEmulator.with { emulator in
            let (live, credentials, store, local) = try await Self.dueSession(emulator)
            defer { live.cleanUp() }
            #expect(try local.localCredentials() == nil, "due: the fast path declines")
            let renewing = live.manager(over: store)
            renewing.takeOver(try #require(local.heldRecord))
            try await emulator.controls.resetRequestCounts()

            let renewed = try await renewing.credentials()
            #expect(renewed.accessToken != credentials.accessToken)
            #expect(store.calls == CountingStore.Calls(reads: 1, updates: 2), "\(store.calls)")
            #expect(try await emulator.controls.requestCounts()[.token] == 1)
            #expect(try live.relaunched().localCredentials() == renewed, "the renewal is stored")
        }
    }

    @Test("a record renewed by another process since it was handed over costs a refused lease, not a second grant")
    func staleRecord() async throws {
        try await LiveEmulator.with { emulator in
            let (live, _, store, local) = try await Self.dueSession(emulator)
            defer { live.cleanUp() }
            #expect(try local.localCredentials() == nil)
            let handedOver = try #require(local.heldRecord)
            // Another process renews between the fast path's read and the renewal.
            let other = try await live.relaunched().credentials()
            try await emulator.controls.resetRequestCounts()

            let renewing = live.manager(over: store)
            renewing.takeOver(handedOver)
            #expect(try await renewing.credentials() == other, "the stored renewal serves; no wrong write")
            #expect(try await emulator.controls.requestCounts()[.token] == 0, "the spent refresh token is not sent")
            #expect(try live.relaunched().localCredentials() == other)
        }
    }

    @Test("a record is taken over once: the next renewal reads the store")
    func once() async throws {
        try await LiveEmulator.with { emulator in
            let (live, _, store, local) = try await Self.dueSession(emulator)
            defer { live.cleanUp() }
            _ = try local.localCredentials()
            let renewing = live.manager(over: store)
            renewing.takeOver(try #require(local.heldRecord))
            _ = try await renewing.credentials()
            let before = store.calls
            _ = try await renewing.renew()
            #expect(store.calls.reads == before.reads + 1, "a forced renewal reads the store first")
        }
    }
}

extension TakeOverTests {
    /// Alice signed in, her access token expired, and a manager over a counting store of the session: the fast path's.
    fileprivate static func dueSession(_ emulator: AuthEmulator) async throws
        -> (LiveSession, Credentials, CountingStore, SessionManager)
    {
        let live = try LiveSession.make(emulator)
        let credentials = try await live.signIn()
        live.expire(credentials)
        let store = CountingStore(try LiveSession.makeStore(live.folder))
        return (live, credentials, store, live.manager(over: store))
    }
}

extension LiveSession {
    /// A manager of this session over `store`, on the session's clock.
    fileprivate func manager(over store: some SecureStore) -> SessionManager {
        SessionManager(
            provider: ProviderClient(configuration: configuration, clock: time.clock), store: store,
            clock: time.clock)
    }
}

/// A real encrypted file store, journal included, that counts the reads and atomic updates it serves.
private final class CountingStore: SecureStoreJournal {
    struct Calls: Equatable, CustomStringConvertible {
        var reads = 0
        var updates = 0
        var description: String { "\(reads) reads, \(updates) updates" }
    }

    private let base: EncryptedFileStore
    private let counts = Mutex(Calls())

    init(_ base: EncryptedFileStore) { self.base = base }

    var calls: Calls { counts.withLock { $0 } }
    var service: String { base.service }

    func data(forKey key: String) throws(SecureStoreError) -> Data? {
        counts.withLock { $0.reads += 1 }
        return try base.data(forKey: key)
    }

    func setData(_ data: Data, forKey key: String) throws(SecureStoreError) { try base.setData(data, forKey: key) }
    func deleteItem(forKey key: String) throws(SecureStoreError) { try base.deleteItem(forKey: key) }
    func deleteAll() throws(SecureStoreError) { try base.deleteAll() }
    func keys() throws(SecureStoreError) -> [String] { try base.keys() }

    func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
        counts.withLock { $0.updates += 1 }
        return try base.update(forKey: key, transform)
    }

    func journalEntry(forKey key: String) throws(SecureStoreError) -> Data? { try base.journalEntry(forKey: key) }

    func setJournalEntry(_ data: Data?, forKey key: String) throws(SecureStoreError) {
        try base.setJournalEntry(data, forKey: key)
    }
}
