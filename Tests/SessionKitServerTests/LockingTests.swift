import Dispatch
import Foundation
import PostgresNIO
import SecureStore
import Synchronization
import Testing

@testable import SessionKitServer

/// What other instances see while one holds an item's lock, and after it dies holding it. The blocking calls
/// run on plain threads: blocked tasks would hold the few threads Swift concurrency has.
@Suite("PostgresSessionStore locks and lost writers", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct LockingTests {
    /// Runs `update` on `store` on a plain thread with a transform that signals `entered` and then waits for
    /// `proceed`; returns a group to wait on and the call's error, if any, once it is done.
    static func holdLock(
        _ store: PostgresSessionStore,
        key: String,
        entered: DispatchSemaphore,
        proceed: DispatchSemaphore
    ) -> (DispatchGroup, Failure) {
        let group = DispatchGroup()
        let failure = Failure()
        DispatchQueue.global().async(group: group) {
            do {
                try store.update(forKey: key) { old in
                    entered.signal()
                    proceed.wait()
                    return old
                }
            } catch {
                failure.record(error)
            }
        }
        return (group, failure)
    }

    @Test("A writer that waits past the lock timeout fails as unavailable, and the item is unchanged")
    func lockTimeout() throws {
        let service = "tests.lock.\(UUID().uuidString)"
        let holder = try TestPostgres.store(service: service)
        let waiter = try TestPostgres.store(service: service) { $0.lockTimeout = .milliseconds(300) }
        try holder.setString("v", forKey: "k")
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let (group, failure) = Self.holdLock(holder, key: "k", entered: entered, proceed: proceed)
        entered.wait()
        let clock = ContinuousClock()
        let start = clock.now
        let error = storeError { try waiter.update(forKey: "k") { _ in Data("w".utf8) } }
        let setError = storeError { try waiter.setString("w", forKey: "k") }
        proceed.signal()
        group.wait()
        #expect(failure.error == nil)
        #expect(clock.now - start < .seconds(3))
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("55P03") == true)
        #expect(setError?.code == .unavailable)
        #expect(try waiter.string(forKey: "k") == "v")
        // Reads do not wait for the lock.
        #expect(try waiter.string(forKey: "k") == "v")
    }

    @Test("A writer whose connection dies holding the lock loses its write and blocks no one")
    func writerKilledHoldingTheLock() throws {
        let service = "tests.killed.\(UUID().uuidString)"
        let name = "sessionkit-killed-\(UUID().uuidString.prefix(8))"
        let doomed = try TestPostgres.store(service: service) { $0.applicationName = name }
        let other = try TestPostgres.store(service: service) { $0.lockTimeout = .seconds(5) }
        try doomed.setString("0", forKey: "k")
        let group = DispatchGroup()
        let failure = Failure()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async(group: group) {
            do {
                try doomed.update(forKey: "k") { _ in
                    entered.signal()
                    proceed.wait()
                    return Data("lost".utf8)
                }
            } catch {
                failure.record(error)
            }
        }
        entered.wait()
        // The instance's connection dies mid-transaction, as when its process is killed.
        _ = try other.raw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = \(name)")
        let clock = ContinuousClock()
        let start = clock.now
        try other.update(forKey: "k") { _ in Data("1".utf8) }
        #expect(clock.now - start < .seconds(2), "the lock went with the connection")
        let resumed = clock.now
        proceed.signal()
        group.wait()
        #expect(clock.now - resumed < .seconds(2), "a write on the lost connection fails at once")
        #expect(failure.error?.code == .unavailable)
        #expect(try other.string(forKey: "k") == "1", "the dead writer's value was never committed")
        #expect(try doomed.string(forKey: "k") == "1", "the dead writer's store reconnects")
    }

    @Test("A pool whose connections all stay busy fails as unavailable after the acquire timeout")
    func poolExhausted() throws {
        let store = try TestPostgres.store {
            $0.maximumConnections = 1
            $0.acquireTimeout = .milliseconds(300)
        }
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let (group, failure) = Self.holdLock(store, key: "k", entered: entered, proceed: proceed)
        entered.wait()
        let error = storeError { _ = try store.data(forKey: "other") }
        proceed.signal()
        group.wait()
        #expect(failure.error == nil)
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("maximumConnections") == true)
        #expect(try store.data(forKey: "other") == nil)
    }
}

/// The error a call on another thread ended with, if any.
final class Failure: Sendable {
    private let state = Mutex<SecureStoreError?>(nil)

    func record(_ error: any Error) {
        state.withLock { $0 = error as? SecureStoreError ?? SecureStoreError(code: .ioFailure, message: "\(error)") }
    }

    var error: SecureStoreError? { state.withLock { $0 } }
}
