import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitPostgresTestSupport
import SessionKitTesting
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

/// Conditional writes: one statement that writes only if the row is still at the version read, and what they
/// save a renewal.
@Suite("PostgresSessionStore conditional writes", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct VersionedWriteTests {
    @Test(
        "replace writes only at the version read: create, change, refuse a stale version with the row as it is, delete")
    func compareAndSet() async throws {
        let store = try await TestPostgres.store()
        #expect(try await store.versionedData(forKey: "k") == VersionedItem(data: nil, version: 0))
        let created = try Self.written(try await store.replace(forKey: "k", ifVersion: 0, with: Data("one".utf8)))
        #expect(try await store.replace(forKey: "k", ifVersion: 0, with: Data("again".utf8)) == .refused(current: nil))
        let read = try await store.versionedData(forKey: "k")
        #expect(read == VersionedItem(data: Data("one".utf8), version: created))
        let changed = try Self.written(try await store.replace(forKey: "k", ifVersion: created, with: Data("two".utf8)))
        #expect(changed > created)
        // Refused, with the row as it is now: no read needed to learn it.
        #expect(
            try await store.replace(forKey: "k", ifVersion: created, with: Data("stale".utf8))
                == .refused(current: VersionedItem(data: Data("two".utf8), version: changed)))
        #expect(try await store.string(forKey: "k") == "two")
        // A write by the store's transactional update moves the version on too.
        try await store.update(forKey: "k") { _ in Data("three".utf8) }
        #expect(try await store.replace(forKey: "k", ifVersion: changed, with: nil) == .refused(current: nil))
        let now = try await store.versionedData(forKey: "k").version
        #expect(try await store.replace(forKey: "k", ifVersion: now, with: nil) == .written(version: 0))
        #expect(try await store.data(forKey: "k") == nil)
        #expect(try await store.keys() == [])
    }

    /// The new version of a write that must have happened.
    static func written(_ outcome: VersionedWrite) throws -> UInt64 {
        guard case .written(let version) = outcome else {
            throw SecureStoreError(code: .ioFailure, message: "the write was refused: \(outcome)")
        }
        return version
    }

    @Test("a conditional write is announced, as its writer's own")
    func announced() async throws {
        let service = "tests.versions.\(UUID().uuidString)"
        let writer = try await TestPostgres.store(service: service)
        let listener = try await TestPostgres.store(service: service)
        let theirs = try await listener.changes()
        let own = try await writer.changes()
        let version = try Self.written(
            try await writer.replace(forKey: "session-1", ifVersion: 0, with: Data("v".utf8)))
        let seen = try await ChangesTests.first(1, of: theirs)
        #expect(seen.first?.affects(key: "session-1") == true && seen.first?.isOwnWrite == false)
        #expect(seen.first?.item == VersionedItem(data: Data("v".utf8), version: version), "announced with its value")
        #expect(try await ChangesTests.first(1, of: own).first?.isOwnWrite == true)
    }

    @Test("a forced renewal of a session held here: the lease and the commit, each confirmed, and no read")
    func renewalStatements() async throws {
        try await LiveEmulator.with { emulator in
            let store = try await TestPostgres.store()
            let manager = SessionManager(
                provider: ProviderClient(configuration: try emulator.providerConfiguration()), store: store,
                account: "alice")
            try await manager.store(
                try await manager.provider.signIn(
                    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword)))
            let (before, checksBefore) = (store.statementCount, store.commitCheckCount)
            let renewed = try await manager.renew()
            // Each write, and the statement that confirms its commit.
            #expect(store.statementCount - before == 4, "statements: \(store.statementCount - before)")
            #expect(store.commitCheckCount - checksBefore == 2)
            #expect(try await manager.storedCredentials() == renewed)
            // Written where another reader finds it.
            let other = SessionManager(provider: manager.provider, store: store, account: "alice")
            #expect(try await other.storedCredentials() == renewed)
        }
    }

    @Test("with a listener up, a conditional write is confirmed by its own announcement, with no statement")
    func confirmedByAnnouncement() async throws {
        let store = try await TestPostgres.store()
        let written = try VersionedWriteTests.written(
            try await store.replace(forKey: "k", ifVersion: 0, with: Data("one".utf8)))
        #expect(store.announcedCommitCount == 0, "no listener yet: confirmed by a statement")
        let changes = try await store.changes()
        let listening = Task { for try await _ in changes {} }
        defer { listening.cancel() }
        let (before, checksBefore) = (store.statementCount, store.commitCheckCount)
        _ = try VersionedWriteTests.written(
            try await store.replace(forKey: "k", ifVersion: written, with: Data("two".utf8)))
        #expect(store.statementCount - before == 1, "the write alone")
        #expect(store.commitCheckCount == checksBefore)
        #expect(store.announcedCommitCount == 1)
        #expect(store.commitWatch.watchedKeyCount == 0)
        // A refused write waits for nothing.
        let refused = try await store.replace(forKey: "k", ifVersion: written, with: Data("three".utf8))
        #expect(refused != .written(version: written + 1))
        #expect(store.announcedCommitCount == 1)
        #expect(try await store.data(forKey: "k") == Data("two".utf8))
    }
}
