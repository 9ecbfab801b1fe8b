import Foundation
import PostgresNIO
import SecureStore
import SessionKitPostgresTestSupport
import Synchronization
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

@Suite("PostgresSessionStore atomic update", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct ConcurrencyTests {
    static let increments = 50

    /// Adds one to the decimal counter under `key`.
    static func increment(_ store: any AsyncSecureStore, key: String) async throws {
        try await store.update(forKey: key) { old in
            let value = old.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
            return Data(String(value + 1).utf8)
        }
    }

    /// `tasks` tasks per store, each incrementing `key` `increments` times, all at once.
    static func hammer(_ stores: [PostgresSessionStore], tasks: Int, key: String) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores {
                for _ in 0..<tasks {
                    group.addTask {
                        for _ in 0..<increments { try await increment(store, key: key) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("8 concurrent tasks on one store lose no increment, from a missing row on")
    func tasksOnOneStore() async throws {
        let store = try await TestPostgres.store()
        try await Self.hammer([store], tasks: 8, key: "counter")
        #expect(try await store.string(forKey: "counter") == String(8 * Self.increments))
        let generation = try await store.raw(
            "SELECT generation FROM sessionkit_items WHERE service = \(store.service)"
        )[0].decode(Int64.self)
        #expect(generation == Int64(8 * Self.increments))
    }

    @Test("Two store instances with their own pools, as two servers would have, lose no increment")
    func twoInstances() async throws {
        let service = "tests.instances.\(UUID().uuidString)"
        let first = try await TestPostgres.store(service: service)
        let second = try await TestPostgres.store(service: service)
        #expect(first.client !== second.client)
        try await Self.hammer([first, second], tasks: 4, key: "counter")
        #expect(try await first.string(forKey: "counter") == String(2 * 4 * Self.increments))
    }

    @Test("setData racing update on a missing row is never overwritten by a stale read")
    func setDataWaitsForUpdate() async throws {
        let service = "tests.race.\(UUID().uuidString)"
        let first = try await TestPostgres.store(service: service)
        let second = try await TestPostgres.store(service: service)
        let entered = Atomic<Bool>(false)
        let proceed = DispatchSemaphore(value: 0)
        // The transform holds the update's transaction (and its locks) open until the test lets it go.
        let updating = Task {
            try await first.update(forKey: "k") { old in
                entered.store(true, ordering: .relaxed)
                _ = proceed.wait(timeout: .now() + 10)
                return Data(((old.map { String(decoding: $0, as: UTF8.self) } ?? "nil") + "+1").utf8)
            }
        }
        while !entered.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
        let setting = Task { () async throws -> Void in try await second.setString("set", forKey: "k") }
        try await Task.sleep(for: .milliseconds(300))
        proceed.signal()
        _ = try await updating.value
        try await setting.value
        // setData waited for the update's lock, so it came after it and its value stands.
        #expect(try await first.string(forKey: "k") == "set")
    }

    @Test("An error thrown by the transform propagates unchanged, the item stays, and the connection is reusable")
    func transformErrorRollsBack() async throws {
        struct Refused: Error {}
        let store = try await TestPostgres.store { $0.maximumConnections = 1 }
        try await store.setString("v", forKey: "k")
        await #expect(throws: Refused.self) {
            try await store.update(forKey: "k") { _ in throw Refused() }
        }
        #expect(try await store.string(forKey: "k") == "v")
        try await store.update(forKey: "k") { _ in Data("w".utf8) }
        #expect(try await store.string(forKey: "k") == "w")
    }
}
