import Foundation
import SecureStore
import Testing

extension SecureStoreConformance {
    /// The error the checks' transforms throw.
    struct TransformFailure: Error, Equatable {}

    func checkUpdate(_ store: any AsyncSecureStore) async throws {
        var seen: [Data?] = []
        let created = try await store.update(forKey: "k") { old in
            seen.append(old)
            return Data("1".utf8)
        }
        #expect(created == Data("1".utf8))
        let changed = try await store.update(forKey: "k") { old in
            seen.append(old)
            return (old ?? Data()) + Data("2".utf8)
        }
        #expect(changed == Data("12".utf8))
        #expect(seen == [nil, Data("1".utf8)])
        #expect(try await store.string(forKey: "k") == "12")
        let unchanged = try await store.update(forKey: "k") { $0 }
        #expect(unchanged == Data("12".utf8))
        #expect(try await store.string(forKey: "k") == "12")
    }

    func checkUpdateErrorLeavesItem(_ store: any AsyncSecureStore) async throws {
        try await store.setString("original", forKey: "k")
        await #expect(throws: TransformFailure()) {
            try await store.update(forKey: "k") { _ in throw TransformFailure() }
        }
        #expect(try await store.string(forKey: "k") == "original")
        await #expect(throws: TransformFailure()) {
            try await store.update(forKey: "absent") { _ in throw TransformFailure() }
        }
        #expect(try await store.hasItem(forKey: "absent") == false)
        #expect(try await store.keys() == ["k"])
    }

    func checkUpdateReturningNilDeletes(_ store: any AsyncSecureStore) async throws {
        try await store.setString("v", forKey: "k")
        try await store.setString("w", forKey: "other")
        let result = try await store.update(forKey: "k") { _ in nil }
        #expect(result == nil)
        #expect(try await store.data(forKey: "k") == nil)
        #expect(try await store.keys() == ["other"])
        let stillNil = try await store.update(forKey: "absent") { _ in nil }
        #expect(stillNil == nil)
        #expect(try await store.keys() == ["other"])
    }

    func checkConcurrentUpdates(_ store: any AsyncSecureStore) async throws {
        let tasks = 8
        let incrementsPerTask = 20
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<incrementsPerTask {
                        try await Self.increment(store, key: "counter")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.string(forKey: "counter") == String(tasks * incrementsPerTask))
    }

    /// Adds one to the decimal counter under `key` with `update`.
    static func increment(_ store: any AsyncSecureStore, key: String) async throws {
        try await store.update(forKey: key) { old in
            let value = old.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
            return Data(String(value + 1).utf8)
        }
    }
}
