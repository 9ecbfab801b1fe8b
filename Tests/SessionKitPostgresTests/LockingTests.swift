import Dispatch
import Foundation
import PostgresNIO
import SecureStore
import SessionKitPostgresTestSupport
import Synchronization
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

/// What other instances see while one holds an item's lock, and after it dies holding it. The lock is held by
/// a transaction of the test's own (``HeldLock``), exactly as an instance's update holds it, so that no thread
/// waits in the meantime.
@Suite("PostgresSessionStore locks and lost writers", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct LockingTests {
    @Test("A writer that waits past the lock timeout fails as unavailable, and the item is unchanged")
    func lockTimeout() async throws {
        let service = "tests.lock.\(UUID().uuidString)"
        let holder = try await TestPostgres.store(service: service)
        let waiter = try await TestPostgres.store(service: service) { $0.lockTimeout = .milliseconds(300) }
        try await holder.setString("v", forKey: "k")
        let held = try await HeldLock.take(in: holder, key: "k")
        let clock = ContinuousClock()
        let start = clock.now
        let error = await storeError { try await waiter.update(forKey: "k") { _ in Data("w".utf8) } }
        let setError = await storeError { try await waiter.setString("w", forKey: "k") }
        // Reads do not wait for the lock.
        #expect(try await waiter.string(forKey: "k") == "v")
        try await held.release()
        // Each write gave up at the 300 ms lock timeout (55P03, below), not at the 15 s call deadline; the bound
        // leaves a loaded machine room (3.9 s seen) and still tells the two apart.
        #expect(clock.now - start < .seconds(8))
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("55P03") == true)
        #expect(setError?.code == .unavailable)
        #expect(try await waiter.string(forKey: "k") == "v")
    }

    @Test("A writer whose connection dies holding the lock blocks no one")
    func writerKilledHoldingTheLock() async throws {
        let service = "tests.killed.\(UUID().uuidString)"
        let name = "sessionkit-killed-\(UUID().uuidString.prefix(8))"
        let doomed = try await TestPostgres.store(service: service)
        let other = try await TestPostgres.store(service: service) { $0.lockTimeout = .seconds(5) }
        try await doomed.setString("0", forKey: "k")
        let held = try await HeldLock.take(in: doomed, key: "k", applicationName: name)
        // The instance's connection dies mid-transaction, as when its process is killed.
        _ = try await other.raw(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = \(name)")
        let clock = ContinuousClock()
        let start = clock.now
        try await other.update(forKey: "k") { _ in Data("1".utf8) }
        #expect(clock.now - start < .seconds(2), "the lock went with the connection")
        // The lost transaction's connection was closed by the server: its write can never commit.
        let closing = ContinuousClock.now + .seconds(2)
        while !held.connection.isClosed, ContinuousClock.now < closing { try await Task.sleep(for: .milliseconds(20)) }
        #expect(held.connection.isClosed)
        #expect(try await other.string(forKey: "k") == "1")
        #expect(try await doomed.string(forKey: "k") == "1")
    }

    @Test("A pool that is only busy is waited for; one busy past the call's deadline fails, naming the limit")
    func poolExhausted() async throws {
        let store = try await TestPostgres.store {
            $0.maximumConnections = 1
            $0.acquireTimeout = .milliseconds(300)
            $0.callTimeout = .seconds(4)
        }
        // The pool's only connection is busy for a second: a call waits past the acquire timeout and succeeds
        // (the call may take 4 s: room for a loaded machine).
        let short = Task { try await store.raw("SELECT pg_sleep(1)") }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await store.data(forKey: "other") == nil)
        _ = try await short.value
        // Busy for longer than the call may take: unavailable, saying which limit to raise.
        let long = Task { try await store.raw("SELECT pg_sleep(6)", within: .seconds(20)) }
        try await Task.sleep(for: .milliseconds(200))
        let error = await storeError { _ = try await store.data(forKey: "other") }
        _ = try await long.value
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("maximumConnections") == true, "\(String(describing: error))")
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
