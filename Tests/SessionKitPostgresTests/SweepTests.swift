import Foundation
import Logging
import PostgresNIO
import SecureStore
import SessionKitPostgresTestSupport
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

@Suite("PostgresSessionStore sweep of idle sessions", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct SweepTests {
    @Test("items not written for the idle time are deleted and announced; newer ones and other services stay")
    func sweepsIdleItems() async throws {
        let service = "tests.sweep.\(UUID().uuidString)"
        let store = try await TestPostgres.store(service: service)
        let other = try await TestPostgres.store(service: service + ".other")
        try await store.setString("old", forKey: "idle-session")
        try await store.setString("new", forKey: "active-session")
        try await other.setString("old", forKey: "idle-session")
        for target in [store, other] {
            _ = try await target.raw(
                """
                UPDATE sessionkit_items SET updated_at = now() - interval '2 hours'
                WHERE service = \(target.service) AND key_digest = \(ByteBuffer(bytes: PostgresSessionStore.digestData("idle-session")))
                """)
        }
        let changes = try await store.changes()
        #expect(try await store.sweep(idleFor: .seconds(3600)) == 1)
        #expect(try await store.string(forKey: "idle-session") == nil)
        #expect(try await store.string(forKey: "active-session") == "new")
        #expect(try await other.string(forKey: "idle-session") == "old")
        let seen = try await ChangesTests.first(1, of: changes)
        #expect(seen.first?.affects(key: "idle-session") == true)
        #expect(try await store.sweep(idleFor: .seconds(3600)) == 0)
    }

    @Test("an idle time under a minute is refused")
    func refusesShortIdle() async throws {
        let store = try await TestPostgres.store()
        await #expect(throws: SecureStoreError.self) { try await store.sweep(idleFor: .seconds(5)) }
    }

    @Test("the IdleSweep service deletes a session once it has been idle long enough, and ends on cancellation")
    func periodicSweep() async throws {
        let store = try await TestPostgres.store()
        try await store.setString("old", forKey: "idle-session")
        let sweep = IdleSweep(
            store: store, idleFor: .seconds(3600), every: .milliseconds(50), logger: Logger(label: "sweep-test"))
        let sweeper = Task { try await sweep.run() }
        defer { sweeper.cancel() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await store.string(forKey: "idle-session") == "old")
        _ = try await store.raw(
            "UPDATE sessionkit_items SET updated_at = now() - interval '2 hours' WHERE service = \(store.service)")
        let deadline = ContinuousClock.now + .seconds(5)
        while try await store.string(forKey: "idle-session") != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await store.string(forKey: "idle-session") == nil)
    }
}
