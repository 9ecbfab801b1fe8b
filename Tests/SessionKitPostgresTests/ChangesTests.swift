import Foundation
import PostgresNIO
import SecureStore
import SessionKitPostgresTestSupport
import SessionKitSupport
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

@Suite("PostgresSessionStore changes and reconnection", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct ChangesTests {
    /// The first `count` elements of `stream`, or fewer if `limit` passes first.
    static func first(
        _ count: Int,
        of stream: AsyncThrowingStream<SecureStoreChange, any Error>,
        within limit: Duration = .seconds(5)
    ) async throws -> [SecureStoreChange] {
        try await withThrowingTaskGroup(of: [SecureStoreChange].self) { group in
            group.addTask {
                var changes: [SecureStoreChange] = []
                for try await change in stream {
                    changes.append(change)
                    if changes.count == count { break }
                }
                return changes
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return []
            }
            let result = try await group.next() ?? []
            group.cancelAll()
            return result
        }
    }

    @Test("Another instance sees every write and delete of the service, by digest, never the key")
    func anotherInstanceSeesChanges() async throws {
        let service = "tests.changes.\(UUID().uuidString)"
        let writer = try await TestPostgres.store(service: service)
        let listener = try await TestPostgres.store(service: service)
        let unrelated = try await TestPostgres.store(service: service + ":other")
        let changes = try await listener.changes()
        let ownChanges = try await writer.changes()
        try await writer.setString("one", forKey: "session-1")
        try await unrelated.setString("x", forKey: "session-1")
        try await writer.update(forKey: "session-1") { _ in Data("two".utf8) }
        try await writer.update(forKey: "missing") { $0 }  // Nothing changed: nothing announced.
        try await writer.deleteItem(forKey: "missing")  // Nothing deleted: nothing announced.
        try await writer.deleteItem(forKey: "session-1")
        try await writer.setString("three", forKey: "session-2")
        try await writer.deleteAll()
        // Timed from the last write: the writes' own time on a loaded machine is not what is tested here. The
        // product's target is 1 s; the bound leaves room for a loaded CI machine running every suite (the process
        // storms among them).
        let clock = ContinuousClock()
        let start = clock.now
        let seen = try await Self.first(5, of: changes)
        #expect(clock.now - start < .seconds(3))
        #expect(seen.count == 5)
        guard seen.count == 5 else { return }
        #expect(seen[0...2].allSatisfy { $0.affects(key: "session-1") && !$0.affects(key: "session-2") })
        #expect(seen[3].affects(key: "session-2") && !seen[3].affects(key: "session-1"))
        #expect(seen[4].keyDigest == nil && seen[4].affects(key: "anything"))
        #expect(seen.allSatisfy { !($0.keyDigest ?? "").contains("session") })
        #expect(!"\(seen)".contains("session-"))
        // Another store object's writes are not its own; the writer's own feed marks its item writes as its own,
        // but not deleteAll, which concerns whatever anyone cached.
        #expect(seen.allSatisfy { !$0.isOwnWrite })
        let own = try await Self.first(5, of: ownChanges)
        #expect(own.map(\.isOwnWrite) == [true, true, true, true, false])
        try await unrelated.deleteAll()
    }

    @Test(
        "A conditional write is announced sealed whole; a forged, altered, moved or unconditional one says only 'read it'"
    )
    func announcedItems() async throws {
        let service = "tests.announced.\(UUID().uuidString)"
        let writer = try await TestPostgres.store(service: service)
        let listener = try await TestPostgres.store(service: service)
        let changes = try await listener.changes()
        let own = try await writer.changes()
        let first = try await writer.replace(forKey: "session-1", ifVersion: 0, with: Data("one".utf8), dueAt: nil)
        guard case .written(let version) = first else {
            Issue.record("the insert was refused: \(first)")
            return
        }
        #expect(version > 1_700_000_000_000_000, "a new row's first generation comes from the clock: \(version)")
        // Sealed and in base64, 7,000 bytes exceed what a notification carries.
        _ = try await writer.replace(
            forKey: "session-2", ifVersion: 0, with: Data(repeating: 7, count: 7_000), dueAt: nil)
        let one = SecureStoreChange.digest(ofKey: "session-1")
        let two = SecureStoreChange.digest(ofKey: "session-2")
        let recorded = try #require(try await Self.first(2, of: own).first { $0.keyDigest == one })
        #expect(recorded.isOwnWrite && recorded.item == nil, "the writer's own, authenticated: no value handed back")
        // The first announcement as sent, for the forgeries below: anyone who may connect may LISTEN and NOTIFY.
        let payload = try Announcement(
            service: service, digest: Data(Hex.bytes(Array(one.utf8))!), writer: writer.writerID, generation: version,
            value: Data("one".utf8), sealer: writer.sealer
        ).payload
        let parts = payload.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let garbage = Data("not sealed at all, just bytes".utf8).base64EncodedString()
        try await notify(writer, "\(service):\(one):forger:9:a:\(garbage)")
        // The right seal with another generation (a replayed value presented as the row's current version).
        try await notify(writer, ([service, one, parts[2], String(version + 5)] + parts[4...]).joined(separator: ":"))
        // The right seal under another writer (which would pass as that instance's own write).
        try await notify(writer, ([service, one, listener.writerID] + parts[3...]).joined(separator: ":"))
        // The right seal moved to another row.
        try await notify(writer, ([service, two] + parts[2...]).joined(separator: ":"))
        // An unconditional write: its generation is not known when it is sent, so it says "read it".
        try await writer.setString("three", forKey: "session-1")
        let seen = try await Self.first(7, of: changes)
        #expect(seen.count == 7)
        guard seen.count == 7 else { return }
        #expect(
            seen[0].affects(key: "session-1") && seen[0].item == VersionedItem(data: Data("one".utf8), version: version)
        )
        #expect(seen[1].affects(key: "session-2") && seen[1].item == nil, "too big: announced without its value")
        #expect(seen[2].affects(key: "session-1") && seen[2].item == nil, "forged: announced without a value")
        #expect(seen[3].affects(key: "session-1") && seen[3].item == nil, "another generation: no value")
        #expect(seen[4].affects(key: "session-1") && seen[4].item == nil && !seen[4].isOwnWrite, "another writer")
        #expect(seen[5].affects(key: "session-2") && seen[5].item == nil, "moved from another row: no value")
        #expect(seen[6].affects(key: "session-1") && seen[6].item == nil, "unconditional: read it")
        #expect(seen.allSatisfy { !$0.isOwnWrite })
        #expect(!"\(seen)".contains("one"), "a change's description never shows the value")
    }

    private func notify(_ store: PostgresSessionStore, _ payload: String) async throws {
        _ = try await store.call("notifying") { connection in
            try await store.execute(
                connection, "SELECT pg_notify(\(PostgresSessionStore.notificationChannel), \(payload))"
            ).count
        }
    }

    @Test("Connections the server drops are replaced: at most a retryable error, then the store works again")
    func reconnectsAfterTerminatedConnections() async throws {
        let name = "sessionkit-test-\(UUID().uuidString.prefix(8))"
        // Idle connections are kept (the tests' default closes them after a second), so that each round finds
        // one to terminate however slowly a loaded machine runs.
        let store = try await TestPostgres.store {
            $0.applicationName = name
            $0.connectionIdleTimeout = .seconds(120)
        }
        let admin = try await TestPostgres.store()
        try await store.setString("kept", forKey: "k")
        for round in 0..<3 {
            let killed = try await admin.raw(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = \(name)"
            )
            #expect(killed.count >= 1, "round \(round)")
            var outcomes: [String] = []
            var value: String?
            for _ in 0..<3 where value == nil {
                do {
                    value = try await store.string(forKey: "k")
                } catch {
                    #expect(error.code == .unavailable, "\(error)")
                    outcomes.append("\(error)")
                }
            }
            #expect(value == "kept", "\(outcomes)")
        }
        try await store.update(forKey: "k") { _ in Data("changed".utf8) }
        #expect(try await store.string(forKey: "k") == "changed")
    }
}
