import Foundation
import PostgresNIO
import SecureStore
import Synchronization
import Testing

@testable import SessionKitServer

@Suite("PostgresSessionStore atomic update", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct ConcurrencyTests {
    static let increments = 50

    /// Adds one to the decimal counter under `key`.
    static func increment(_ store: any SecureStore, key: String) throws {
        try store.update(forKey: key) { old in
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
                        for _ in 0..<increments { try increment(store, key: key) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("8 concurrent tasks on one store lose no increment, from a missing row on")
    func tasksOnOneStore() async throws {
        let store = try TestPostgres.store()
        try await Self.hammer([store], tasks: 8, key: "counter")
        #expect(try store.string(forKey: "counter") == String(8 * Self.increments))
        let generation = try store.raw(
            "SELECT generation FROM sessionkit_items WHERE service = \(store.service)"
        )[0].decode(Int64.self)
        #expect(generation == Int64(8 * Self.increments))
    }

    @Test("Two store instances with their own pools, as two servers would have, lose no increment")
    func twoInstances() async throws {
        let service = "tests.instances.\(UUID().uuidString)"
        let first = try TestPostgres.store(service: service)
        let second = try TestPostgres.store(service: service)
        #expect(first.pool !== second.pool)
        try await Self.hammer([first, second], tasks: 4, key: "counter")
        #expect(try first.string(forKey: "counter") == String(2 * 4 * Self.increments))
    }

    @Test("setData racing update on a missing row is never overwritten by a stale read")
    func setDataWaitsForUpdate() throws {
        let service = "tests.race.\(UUID().uuidString)"
        let first = try TestPostgres.store(service: service)
        let second = try TestPostgres.store(service: service)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let errors = Mutex<[String]>([])
        let group = DispatchGroup()
        // Plain threads, not tasks: both calls block, and blocked tasks would hold Swift concurrency's few
        // threads that this test needs to go on.
        DispatchQueue.global().async(group: group) {
            do {
                try first.update(forKey: "k") { old in
                    entered.signal()
                    proceed.wait()
                    return Data(((old.map { String(decoding: $0, as: UTF8.self) } ?? "nil") + "+1").utf8)
                }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        entered.wait()
        DispatchQueue.global().async(group: group) {
            do {
                try second.setString("set", forKey: "k")
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        Thread.sleep(forTimeInterval: 0.3)
        proceed.signal()
        group.wait()
        #expect(errors.withLock { $0 } == [])
        // setData waited for the update's lock, so it came after it and its value stands.
        #expect(try first.string(forKey: "k") == "set")
    }

    @Test("An error thrown by the transform propagates unchanged, the item stays, and the connection is reusable")
    func transformErrorRollsBack() throws {
        struct Refused: Error {}
        let store = try TestPostgres.store { $0.maximumConnections = 1 }
        try store.setString("v", forKey: "k")
        #expect(throws: Refused.self) {
            try store.update(forKey: "k") { _ in throw Refused() }
        }
        #expect(try store.string(forKey: "k") == "v")
        try store.update(forKey: "k") { _ in Data("w".utf8) }
        #expect(try store.string(forKey: "k") == "w")
    }
}
