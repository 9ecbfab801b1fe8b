import Foundation
import SecureStore
import SessionKitTesting
import Testing

@Suite("EncryptedFileStore: concurrent writers in one process")
struct ConcurrencyTests {
    @Test("many tasks updating their own keys and one counter lose nothing")
    func inProcessUpdates() async throws {
        try await TemporaryFolder.with { folder in
            let tasks = 8
            let steps = 15
            // Each task opens its own store value over the same folder, as separate components would.
            let stores = try (0..<tasks).map { _ in try makeFileStore(folder) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (task, store) in stores.enumerated() {
                    group.addTask {
                        for step in 0..<steps {
                            try store.update(forKey: "task\(task)-\(step)") { _ in Data("\(task).\(step)".utf8) }
                            try store.update(forKey: "counter") { old in
                                let value = old.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                                return Data(String(value + 1).utf8)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let store = stores[0]
            #expect(try store.string(forKey: "counter") == String(tasks * steps))
            let expected = (0..<tasks).flatMap { task in (0..<steps).map { "task\(task)-\($0)" } } + ["counter"]
            #expect(try store.keys() == expected.sorted())
            for task in 0..<tasks {
                #expect(try store.string(forKey: "task\(task)-\(steps - 1)") == "\(task).\(steps - 1)")
            }
        }
    }

    @Test("setData and deleteItem from many tasks on different keys lose nothing")
    func inProcessSetAndDelete() async throws {
        try await TemporaryFolder.with { folder in
            let store = try makeFileStore(folder)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<6 {
                    group.addTask {
                        for step in 0..<10 {
                            try store.setString("v\(step)", forKey: "keep\(task)-\(step)")
                            try store.setString("x", forKey: "drop\(task)-\(step)")
                            try store.deleteItem(forKey: "drop\(task)-\(step)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let keys = try store.keys()
            #expect(keys.count == 60)
            #expect(keys.allSatisfy { $0.hasPrefix("keep") })
        }
    }

    @Test("a held lock makes writers wait, then fail with unavailable after the timeout")
    func lockTimeout() async throws {
        try await TemporaryFolder.with { folder in
            let configuration = EncryptedFileStore.Configuration(folder: folder, lockTimeout: .milliseconds(200))
            let store = try EncryptedFileStore(service: "s", configuration: configuration)
            try store.setString("v", forKey: "k")
            let started = ContinuousClock.now
            let error = storeError {
                try store.update(forKey: "k") { old in
                    // The transform runs under the lock; a nested write must time out, not deadlock.
                    try store.setString("w", forKey: "other")
                    return old
                }
            }
            let elapsed = ContinuousClock.now - started
            #expect(error?.code == .unavailable)
            #expect(error.map { "\($0)".contains("another process holds the store lock") } == true)
            #expect(elapsed >= .milliseconds(200))
            #expect(elapsed < .seconds(5))
            #expect(try store.string(forKey: "k") == "v")
            #expect(try store.hasItem(forKey: "other") == false)
        }
    }
}
