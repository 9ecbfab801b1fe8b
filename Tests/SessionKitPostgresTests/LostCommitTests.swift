import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitPostgresTestSupport
import SessionKitTesting
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

/// A statement PostgreSQL answered and then never committed (`scripts/postgres-proxy.py`): what a server shut
/// down between a statement's answer and its commit leaves behind, as `pg_ctl restart` in the middle of a renewal
/// storm did in CI (a lease reported taken was not in the table; another instance took it, and the refresh token
/// went to the provider twice). Whatever the store reports done must be in the table.
@Suite(
    "PostgresSessionStore writes answered but never committed",
    .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct LostCommitTests {
    static let now = Date()
    static let lease = ItemLease(owner: "instance-a", until: now.addingTimeInterval(30))

    /// A store of `service` whose connections pass through a proxy that loses the commit of the first statement
    /// containing `pattern`, and the proxy (to stop).
    static func proxied(service: String, losing pattern: String) async throws -> (PostgresSessionStore, ProxyProcess) {
        let database = try TestPostgres.configuration()
        let proxy = try ProxyProcess(arguments: ["\(database.port)", pattern])
        let store = try await TestPostgres.store(service: service) {
            $0.port = proxy.port
            $0.tls = .disable
        }
        return (store, proxy)
    }

    /// One write whose commit the proxy loses: `setUp` runs on a direct store first, `write` on the proxied one;
    /// `done` says, from the table, whether the write is there.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let pattern: String
        let setUp: @Sendable (PostgresSessionStore) async throws -> Void
        let write: @Sendable (PostgresSessionStore) async throws -> Void
        let done: @Sendable (PostgresSessionStore) async throws -> Bool
        /// Whether the write announces its row's generation, so that a listener can confirm its commit.
        var announcesItsGeneration = false
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a lease taken by a read (the batched statement)", pattern: "WITH wanted AS",
            setUp: { store in
                _ = try await store.replace(
                    forKey: "k", ifVersion: 0, with: Data("one".utf8), dueAt: now.addingTimeInterval(-10))
            },
            write: { store in
                let read = try await store.leaseIfDue(forKey: "k", dueBy: now, lease: lease)
                #expect(read.outcome == .leased, "the item was due and free")
            },
            done: { store in try await store.versionedData(forKey: "k").lease?.owner == lease.owner }),
        Case(
            name: "a lease taken by a read of a row another transaction held (the single statement)",
            pattern: "AND lease_until = $5",
            setUp: { store in
                _ = try await store.replace(
                    forKey: "k", ifVersion: 0, with: Data("one".utf8), dueAt: now.addingTimeInterval(-10))
            },
            write: { store in
                // Held while the batch reads it: reported busy, it is read again alone, after the release.
                let held = try await HeldLock.take(in: store, key: "k")
                let before = store.heldRowReadCount
                let read = Task { try await store.leaseIfDue(forKey: "k", dueBy: now, lease: lease) }
                let deadline = ContinuousClock.now + .seconds(10)
                while store.heldRowReadCount == before, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                try await held.release()
                #expect(store.heldRowReadCount > before, "the batch did not find the row held")
                #expect(try await read.value.outcome == .leased, "the item was due and free once released")
            },
            done: { store in try await store.versionedData(forKey: "k").lease?.owner == lease.owner }),
        Case(
            name: "a conditional write over a row (the batched statement)", pattern: "w.key_sealed",
            setUp: { store in _ = try await store.replace(forKey: "k", ifVersion: 0, with: Data("one".utf8)) },
            write: { store in
                let version = try await store.versionedData(forKey: "k").version
                _ = try VersionedWriteTests.written(
                    try await store.replace(forKey: "k", ifVersion: version, with: Data("two".utf8)))
            },
            done: { store in try await store.data(forKey: "k") == Data("two".utf8) }, announcesItsGeneration: true),
        Case(
            name: "a conditional write over a row another transaction held (the single statement)",
            pattern: "AND generation = $9",
            setUp: { store in _ = try await store.replace(forKey: "k", ifVersion: 0, with: Data("one".utf8)) },
            write: { store in
                // Held while the batch writes it: reported busy, it is written again alone, after the release.
                let version = try await store.versionedData(forKey: "k").version
                let held = try await HeldLock.take(in: store, key: "k")
                let before = store.heldRowWriteCount
                let write = Task { try await store.replace(forKey: "k", ifVersion: version, with: Data("two".utf8)) }
                let deadline = ContinuousClock.now + .seconds(10)
                while store.heldRowWriteCount == before, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                try await held.release()
                #expect(store.heldRowWriteCount > before, "the batch did not find the row held")
                _ = try VersionedWriteTests.written(try await write.value)
            },
            done: { store in try await store.data(forKey: "k") == Data("two".utf8) }, announcesItsGeneration: true),
        Case(
            name: "a conditional write of a new row", pattern: "DO NOTHING",
            setUp: { _ in },
            write: { store in
                _ = try VersionedWriteTests.written(
                    try await store.replace(forKey: "k", ifVersion: 0, with: Data("new".utf8)))
            },
            done: { store in try await store.data(forKey: "k") != nil }, announcesItsGeneration: true),
        Case(
            name: "a conditional delete", pattern: "DELETE FROM sessionkit_items",
            setUp: { store in _ = try await store.replace(forKey: "k", ifVersion: 0, with: Data("one".utf8)) },
            write: { store in
                let version = try await store.versionedData(forKey: "k").version
                _ = try VersionedWriteTests.written(try await store.replace(forKey: "k", ifVersion: version, with: nil))
            },
            done: { store in try await store.data(forKey: "k") == nil }),
        Case(
            name: "a renewal set aside in the journal", pattern: "INSERT INTO sessionkit_journal",
            setUp: { _ in },
            write: { store in try await store.setJournalEntry(Data("renewed".utf8), forKey: "k") },
            done: { store in try await store.journalEntry(forKey: "k") != nil }),
        Case(
            name: "a plain write", pattern: "sessionkit_items.generation + 1",
            setUp: { _ in },
            write: { store in try await store.setData(Data("plain".utf8), forKey: "k") },
            done: { store in try await store.data(forKey: "k") != nil }),
    ]

    @Test(
        "a write whose commit was lost is never reported done: a retryable error, and the row as it was",
        arguments: cases, [false, true])
    func neverReportedDone(_ example: Case, listening: Bool) async throws {
        let service = "tests.lost.\(UUID().uuidString)"
        let direct = try await TestPostgres.store(service: service)
        try await example.setUp(direct)
        let (proxied, proxy) = try await Self.proxied(service: service, losing: example.pattern)
        defer { proxy.stop() }
        // With a listener up, a conditional write waits for its own announcement, which a lost commit never sends.
        let changes = listening ? try await proxied.changes() : nil
        let listener = Task { if let changes { for try await _ in changes {} } }
        defer { listener.cancel() }
        var failure: SecureStoreError?
        do {
            try await example.write(proxied)
        } catch let error as SecureStoreError {
            failure = error
        }
        let done = try await example.done(direct)
        #expect(!done, "the proxy let the commit through: the test proves nothing")
        #expect(failure?.code == .unavailable, "reported done, yet not in the table")
        #expect(failure?.isRetryable == true)
        #expect(failure?.message.contains("may not have been saved") == true, "\(failure?.message ?? "")")
        #expect(proxied.announcedCommitCount == 0)
        // The store goes on: its next call, on a new connection, is saved (confirmed by its announcement when it
        // announces its generation and a listener is up).
        try await example.write(proxied)
        #expect(try await example.done(direct))
        #expect(proxied.announcedCommitCount == (listening && example.announcesItsGeneration ? 1 : 0))
    }

    @Test("an instance whose lease was answered but never committed renews nothing: the session is renewed once")
    func leaseLostInARestart() async throws {
        try await LiveEmulator.with { emulator in
            let service = "tests.lost.\(UUID().uuidString)"
            let time = TestClock()
            let configuration = try emulator.providerConfiguration()
            let direct = try await TestPostgres.store(service: service)
            let (proxied, proxy) = try await Self.proxied(service: service, losing: "WITH wanted AS")
            defer { proxy.stop() }
            func manager(_ store: PostgresSessionStore) -> SessionManager {
                SessionManager(
                    provider: ProviderClient(configuration: configuration, clock: time.clock), store: store,
                    account: "alice", clock: time.clock)
            }
            let first = manager(proxied)
            let second = manager(direct)
            let credentials = try await first.provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            try await second.store(credentials)
            time.advance(by: (credentials.expiresAt ?? Date()).timeIntervalSinceNow + 1)
            try await emulator.controls.resetRequestCounts()
            // The first instance's lease is lost: it must not renew on it.
            await #expect(throws: SessionKitError.self) { _ = try await first.credentials() }
            let renewed = try await second.credentials()
            #expect(renewed.accessToken != credentials.accessToken)
            #expect(try await first.credentials() == renewed)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
        }
    }
}
