import AuthEmulator
import Foundation
import SecureStore
import SessionKitTesting
import Testing

@testable import SessionKit

/// What every `SessionCoordinator` that writes with an atomic update keeps, checked on the in-memory reference and
/// on the coordinator over a store's atomic update (synchronous and asynchronous stores): reads, atomic writes,
/// declined writes, failures, journal, announcements. The versioned coordinator of the server half is checked
/// against PostgreSQL in SessionKitServerTests.
@Suite("Session coordinators")
struct SessionCoordinatorTests {
    /// Coordinators for one record of one store, each with its own memory, and the store (when there is one).
    struct Fixture {
        let coordinators: [any SessionCoordinator]
        let helds: [HeldSession]
        /// What each coordinator's reads and failures published.
        let states: [StateBroadcaster]
        let store: MemoryStore?
    }

    /// A coordinator implementation.
    enum Backend: CaseIterable, CustomTestStringConvertible {
        case memory
        case synchronousStore
        case asynchronousStore

        var testDescription: String { "\(self)" }

        /// `count` coordinators for one key of one store.
        func fixture(_ count: Int) -> Fixture {
            let key = "sessionkit.session|tests|\(UUID().uuidString)"
            let store = MemoryStore(service: "tests.coordinator.\(UUID().uuidString)")
            let states = (0..<count).map { _ in StateBroadcaster() }
            let helds = states.map { HeldSession(states: $0) }
            switch self {
            case .memory:
                let records = MemorySessionCoordinator.Records()
                let coordinators = helds.map { MemorySessionCoordinator(records: records, key: key, held: $0) }
                return Fixture(coordinators: coordinators, helds: helds, states: states, store: nil)
            case .synchronousStore:
                let coordinators = helds.map {
                    AtomicUpdateCoordinator(store: store as any SecureStore, key: key, held: $0)
                }
                return Fixture(coordinators: coordinators, helds: helds, states: states, store: store)
            case .asynchronousStore:
                let adapted: any AsyncSecureStore = SynchronousStoreAdapter(store)
                let coordinators = helds.map { AtomicUpdateCoordinator(store: adapted, key: key, held: $0) }
                return Fixture(coordinators: coordinators, helds: helds, states: states, store: store)
            }
        }
    }

    static let credentials = Credentials(
        accessToken: Secret("access"), refreshToken: Secret("refresh"), expiresAt: Date().addingTimeInterval(3_600))

    /// Signs `record` in: credentials, and the generation moved on as the manager moves it.
    static func signedIn(_ record: SessionRecord) -> SessionRecord {
        var next = record
        next.credentials = credentials
        next.generation = record.generation + 1
        return next
    }

    @Test(
        "a record that is not there reads as an empty one, held and reported as signed out", arguments: Backend.allCases
    )
    func readsNothing(_ backend: Backend) async throws {
        let fixture = backend.fixture(1)
        let coordinator = fixture.coordinators[0]
        let record = try await coordinator.read()
        #expect(record == SessionRecord())
        #expect(fixture.helds[0].withLock { $0 } == SessionRecord())
        var states = fixture.states[0].stream().makeAsyncIterator()
        #expect(await states.next() == .signedOut)
        #expect(coordinator.knownRecord() == nil, "nothing vouches for a record held without versions")
        if case .read(let leased) = try await coordinator.readLeasingIfDue(
            dueBy: .distantFuture, owner: "me", until: .distantFuture)
        {
            #expect(leased == SessionRecord(), "an atomic store does not lease as it reads")
        } else {
            Issue.record("an atomic store leased as it read")
        }
    }

    @Test(
        "a write is atomic and seen by every coordinator of the store; a declined one writes nothing",
        arguments: Backend.allCases)
    func writes(_ backend: Backend) async throws {
        let pair = backend.fixture(2).coordinators
        let (written, changed) = try await pair[0].update { Self.signedIn($0) }
        #expect(changed && written.credentials == Self.credentials && written.generation == 1)
        #expect(try await pair[1].read() == written)
        // Declined: nothing is written, and the stored record comes back.
        let (kept, declined) = try await pair[1].update { _ in nil }
        #expect(!declined && kept == written)
        // A transform's error comes out as it was thrown, and leaves the record as it was.
        let refusal = SessionKitError(code: .invalidInput, message: "refused by the test")
        let thrown = await #expect(throws: SessionKitError.self) {
            try await pair[0].update { _ throws(SessionKitError) in throw refusal }
        }
        #expect(thrown?.message == refusal.message)
        #expect(try await pair[0].read() == written)
    }

    @Test("concurrent writes from many coordinators are serialized: none is lost", arguments: Backend.allCases)
    func writesSerialize(_ backend: Backend) async throws {
        let coordinators = backend.fixture(8).coordinators
        try await withThrowingTaskGroup(of: Void.self) { group in
            for coordinator in coordinators {
                group.addTask {
                    for _ in 0..<5 {
                        _ = try await coordinator.update { stored in
                            var next = stored
                            next.generation = stored.generation + 1
                            return next
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await coordinators[0].read().generation == 40)
    }

    @Test(
        "what a coordinator holds is dropped by an announcement, which its store cannot version",
        arguments: Backend.allCases)
    func announcementsDropWhatIsHeld(_ backend: Backend) async throws {
        let fixture = backend.fixture(1)
        let (coordinator, held) = (fixture.coordinators[0], fixture.helds[0])
        _ = try await coordinator.update { Self.signedIn($0) }
        #expect(held.withLock { $0 } != nil)
        coordinator.takeAnnounced(VersionedItem(data: nil, version: 99))
        #expect(held.withLock { $0 } == nil)
    }

    @Test(
        "without suspending, a synchronous store and memory are read; an asynchronous store is not",
        arguments: Backend.allCases)
    func readsWithoutSuspending(_ backend: Backend) async throws {
        let pair = backend.fixture(2).coordinators
        let (written, _) = try await pair[0].update { Self.signedIn($0) }
        let read = try pair[1].readWithoutSuspending()
        #expect(read == (backend == .asynchronousStore ? nil : written))
    }

    @Test("a journal entry is kept, read back and removed", arguments: Backend.allCases)
    func journal(_ backend: Backend) async throws {
        let pair = backend.fixture(2).coordinators
        let entry = Data("set aside".utf8)
        // MemoryStore keeps no journal; the reference keeps one unless told not to.
        #expect(pair[0].keepsJournal == (backend == .memory))
        try await pair[0].setJournalEntry(entry)
        #expect(try await pair[1].journalEntry() == (pair[0].keepsJournal ? entry : nil))
        try await pair[1].setJournalEntry(nil)
        #expect(try await pair[0].journalEntry() == nil)
        let unkept = MemorySessionCoordinator.Records(keepsJournal: false)
        let coordinator = MemorySessionCoordinator(
            records: unkept, key: "k", held: HeldSession(states: StateBroadcaster()))
        try await coordinator.setJournalEntry(entry)
        #expect(try await coordinator.journalEntry() == nil)
    }

    @Test("a record that cannot be read is deleted on request; a readable one is left alone")
    func deletesUnreadable() async throws {
        for backend in [Backend.synchronousStore, .asynchronousStore] {
            let fixture = backend.fixture(1)
            let (coordinator, memory) = (fixture.coordinators[0], try #require(fixture.store))
            _ = try await coordinator.update { Self.signedIn($0) }
            #expect(try await coordinator.deleteIfUnreadable() == false)
            #expect(try await coordinator.read().credentials == Self.credentials)
            let key = try #require(memory.keys().first)
            try memory.setData(Data("not a record".utf8), forKey: key)
            await #expect(throws: SessionKitError.self) { try await coordinator.read() }
            #expect(try await coordinator.deleteIfUnreadable())
            #expect(try await coordinator.read() == SessionRecord())
        }
        // Values in memory are always readable.
        let reference = Backend.memory.fixture(1).coordinators[0]
        _ = try await reference.update { Self.signedIn($0) }
        #expect(try await reference.deleteIfUnreadable() == false)
    }

    @Test("managers sharing the in-memory reference renew an expired session once, as managers sharing a store do")
    func managersOverTheReference() async throws {
        try await LiveEmulator.with { emulator in
            let configuration = try emulator.providerConfiguration()
            let records = MemorySessionCoordinator.Records()
            func manager() -> SessionManager {
                SessionManager(
                    provider: ProviderClient(configuration: configuration), account: "alice", clock: .system,
                    policy: RenewalPolicy(), logger: nil
                ) { key, held in MemorySessionCoordinator(records: records, key: key, held: held) }
            }
            let managers = [manager(), manager(), manager()]
            var credentials = try await managers[0].provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            credentials.expiresAt = Date().addingTimeInterval(-1)
            try await managers[0].store(credentials)
            try await emulator.controls.inject(AuthEmulator.Fault.latency(0.5).only(.refreshToken), into: .token)
            try await emulator.controls.resetRequestCounts()
            let results = try await withThrowingTaskGroup(of: Credentials.self) { group in
                for manager in managers + managers { group.addTask { try await manager.credentials() } }
                return try await group.reduce(into: [Credentials]()) { $0.append($1) }
            }
            #expect(Set(results.map(\.accessToken)).count == 1, "every caller gets the one renewal's result")
            #expect(results[0].accessToken != credentials.accessToken)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            #expect(records.record(forKey: managers[0].storeKey)?.credentials == results[0])
        }
    }
}
