import Foundation
import PostgresNIO
import SecureStore
import SessionKitPostgresTestSupport
import Testing

@testable import SessionKitPostgres

/// Conditional writes over rows made at once (the commits of a renewal storm) go out as few statements, each
/// write with its own answer, and a row another transaction holds holds up only its own write.
@Suite("PostgresSessionStore batched conditional writes", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct BatchedWriteTests {
    @Test("300 writes at once: each its own answer (written, or refused with the row as it is), in batches")
    func batchedWrites() async throws {
        let service = "tests.\(UUID().uuidString)"
        let setUp = try await TestPostgres.store(service: service)
        let keys = (0..<300).map { "session-\($0)" }
        var versions: [String: UInt64] = [:]
        for key in keys {
            versions[key] = try VersionedWriteTests.written(
                try await setUp.replace(forKey: key, ifVersion: 0, with: Data("old \(key)".utf8)))
        }
        // Every tenth row is written again first (another instance got there before): its write expects the
        // generation the row has left. A deleted row refuses with nothing.
        let stale = Set(keys.enumerated().filter { $0.offset % 10 == 3 }.map(\.element))
        for key in stale {
            _ = try VersionedWriteTests.written(
                try await setUp.replace(forKey: key, ifVersion: versions[key]!, with: Data("newer \(key)".utf8)))
        }
        let gone = try VersionedWriteTests.written(
            try await setUp.replace(forKey: "gone", ifVersion: 0, with: Data("gone".utf8)))
        _ = try VersionedWriteTests.written(try await setUp.replace(forKey: "gone", ifVersion: gone, with: nil))

        let store = try await TestPostgres.store(service: service)
        let expected = versions
        let outcomes = try await withThrowingTaskGroup(of: (String, VersionedWrite).self) { group in
            for key in keys {
                group.addTask {
                    let write = try await store.replace(
                        forKey: key, ifVersion: expected[key]!, with: Data("new \(key)".utf8),
                        dueAt: Date().addingTimeInterval(60))
                    return (key, write)
                }
            }
            group.addTask { ("gone", try await store.replace(forKey: "gone", ifVersion: gone, with: Data("x".utf8))) }
            return try await group.reduce(into: [String: VersionedWrite]()) { $0[$1.0] = $1.1 }
        }
        for key in keys {
            let now = try await setUp.versionedData(forKey: key)
            if stale.contains(key) {
                #expect(
                    outcomes[key] == .refused(current: now) || outcomes[key] == .refused(current: nil),
                    "\(key): \(String(describing: outcomes[key]))")
                #expect(now.data == Data("newer \(key)".utf8), "\(key) was written over a newer generation")
            } else {
                #expect(outcomes[key] == .written(version: expected[key]! + 1), "\(key)")
                #expect(now.data == Data("new \(key)".utf8) && now.version == expected[key]! + 1, "\(key)")
            }
        }
        #expect(outcomes["gone"] == .refused(current: nil))
        #expect(try await setUp.data(forKey: "gone") == nil, "a deleted row was written")
        #expect(store.statementCount < keys.count / 4, "\(store.statementCount) statements for \(keys.count) writes")
    }

    @Test("a row held by another transaction holds up only its own write: the others go on")
    func heldRowHoldsUpNoOne() async throws {
        let store = try await TestPostgres.store()
        let keys = (0..<40).map { "session-\($0)" }
        var versions: [String: UInt64] = [:]
        for key in keys + ["held"] {
            versions[key] = try VersionedWriteTests.written(
                try await store.replace(forKey: key, ifVersion: 0, with: Data(key.utf8)))
        }
        let expected = versions
        let held = try await HeldLock.take(in: store, key: "held")
        let before = store.heldRowWriteCount
        // The held row's write and the others at once: the held one is found busy in its batch.
        let holding = Task {
            (
                try await store.replace(forKey: "held", ifVersion: expected["held"]!, with: Data("new".utf8)),
                ContinuousClock.now
            )
        }
        let started = ContinuousClock.now
        let writes: [VersionedWrite]
        do {
            writes = try await withThrowingTaskGroup(of: VersionedWrite.self) { group in
                for key in keys {
                    group.addTask {
                        try await store.replace(forKey: key, ifVersion: expected[key]!, with: Data("new".utf8))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        } catch {
            try? await held.release()
            throw error
        }
        let elapsed = ContinuousClock.now - started
        #expect(writes.count == keys.count && writes.allSatisfy { if case .written = $0 { true } else { false } })
        #expect(elapsed < .seconds(3), "the other sessions' writes took \(elapsed) behind one held row")
        let deadline = ContinuousClock.now + .seconds(5)
        while store.heldRowWriteCount == before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(store.heldRowWriteCount == before + 1, "the held row's write was not sent again alone")
        let released = ContinuousClock.now
        try await held.release()
        let (write, answered) = try await holding.value
        #expect(write == .written(version: expected["held"]! + 1))
        #expect(answered > released, "the held row's writer waited for the row")
        #expect(try await store.data(forKey: "held") == Data("new".utf8))
    }
}
