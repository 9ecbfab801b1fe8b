import Foundation
import PostgresNIO
import SecureStore
import Testing

@testable import SessionKitServer

@Suite("PostgresSessionStore sweep of idle sessions", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct SweepTests {
    @Test("items not written for the idle time are deleted and announced; newer ones and other services stay")
    func sweepsIdleItems() async throws {
        let service = "tests.sweep.\(UUID().uuidString)"
        let store = try TestPostgres.store(service: service)
        let other = try TestPostgres.store(service: service + ".other")
        try store.setString("old", forKey: "idle-session")
        try store.setString("new", forKey: "active-session")
        try other.setString("old", forKey: "idle-session")
        for target in [store, other] {
            _ = try target.raw(
                """
                UPDATE sessionkit_items SET updated_at = now() - interval '2 hours'
                WHERE service = \(target.service) AND key_digest = \(ByteBuffer(bytes: PostgresSessionStore.digestData("idle-session")))
                """)
        }
        let changes = try await store.changes()
        #expect(try store.sweep(idleFor: .seconds(3600)) == 1)
        #expect(try store.string(forKey: "idle-session") == nil)
        #expect(try store.string(forKey: "active-session") == "new")
        #expect(try other.string(forKey: "idle-session") == "old")
        let seen = try await ChangesTests.first(1, of: changes)
        #expect(seen.first?.affects(key: "idle-session") == true)
        #expect(try store.sweep(idleFor: .seconds(3600)) == 0)
    }

    @Test("an idle time under a minute is refused")
    func refusesShortIdle() throws {
        let store = try TestPostgres.store()
        #expect(throws: SecureStoreError.self) { try store.sweep(idleFor: .seconds(5)) }
    }

    @Test("the periodic sweep deletes a session once it has been idle long enough")
    func periodicSweep() async throws {
        let store = try TestPostgres.store()
        try store.setString("old", forKey: "idle-session")
        let sweeper = Task { await store.sweepPeriodically(idleFor: .seconds(3600), every: .milliseconds(50)) }
        defer { sweeper.cancel() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try store.string(forKey: "idle-session") == "old")
        _ = try store.raw(
            "UPDATE sessionkit_items SET updated_at = now() - interval '2 hours' WHERE service = \(store.service)")
        let deadline = ContinuousClock.now + .seconds(5)
        while try store.string(forKey: "idle-session") != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try store.string(forKey: "idle-session") == nil)
    }
}
