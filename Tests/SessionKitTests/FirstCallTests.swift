import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

/// What a cancelled caller must never take from others: callers that joined the first read it started are answered
/// (not failed by its cancellation), and a renewal it started runs to the end, so the rotated refresh token its
/// answer carries is stored. (Guards for moving a first read into the calling task, which was tried in session 24.)
@Suite("SessionManager: a first call's read and renewal outlive a cancelled caller")
struct FirstCallTests {
    /// A store whose reads wait until `open()`; a waiting read fails when its task is cancelled, as a database
    /// call does.
    final class GatedStore: ForwardingStore {
        let base: SynchronousStoreAdapter
        private let state = Mutex((open: false, waiting: [UInt64: CheckedContinuation<Bool, Never>](), next: UInt64(0)))
        let reads = Atomic(0)

        init(_ base: any SecureStore) { self.base = SynchronousStoreAdapter(base) }

        var waitingReads: Int { state.withLock { $0.waiting.count } }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [:] }
                return state.waiting
            }
            for continuation in waiting.values { continuation.resume(returning: true) }
        }

        func data(forKey key: String) async throws(SecureStoreError) -> Data? {
            reads.add(1, ordering: .relaxed)
            let id = state.withLock { state in
                state.next += 1
                return state.next
            }
            let opened = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state -> Bool? in
                        if state.open { return true }
                        if Task.isCancelled { return false }
                        state.waiting[id] = continuation
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(returning: false)
            }
            guard opened else { throw SecureStoreError(code: .unavailable, message: "the read was cancelled") }
            return try await base.data(forKey: key)
        }
    }

    @Test("a caller that joined a first read is answered, though the caller that started the read was cancelled")
    func joinerOutlivesCancelledReader() async throws {
        let memory = MemoryStore(service: "tests.first-call.\(UUID().uuidString)")
        let issuer = try #require(URL(string: "https://first-call.invalid/"))
        let provider = ProviderClient(configuration: try ProviderConfiguration(issuer: issuer, clientID: "first"))
        let credentials = Credentials(
            accessToken: Secret("access"), idToken: nil, refreshToken: Secret("refresh"),
            expiresAt: Date().addingTimeInterval(3_600), scope: "openid offline_access")
        try await SessionManager(provider: provider, store: memory).store(credentials)
        let store = GatedStore(memory)
        let manager = SessionManager(provider: provider, store: store)
        let first = Task { try await manager.credentials() }
        while store.waitingReads == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let joiner = Task { try await manager.credentials() }
        try await Task.sleep(for: .milliseconds(100))  // the joiner waits for the first read
        #expect(store.reads.load(ordering: .relaxed) == 1, "the second call joined the first read")
        first.cancel()
        store.open()
        _ = try? await first.value  // cancelled: answered or failed, either is right for it
        #expect(try await joiner.value == credentials, "the joiner was answered, not failed by another's cancel")
        #expect(store.reads.load(ordering: .relaxed) <= 2, "at most its own read besides the first")
    }

    @Test("a first call cancelled during the renewal it started: the grant completes and is stored, sent once")
    func renewalOutlivesCancelledCaller() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            live.expire(credentials)
            let relaunched = try live.relaunched()  // a cold cache: its first call reads, then renews
            try await emulator.controls.inject(AuthEmulator.Fault.latency(0.5).only(.refreshToken), into: .token)
            try await emulator.controls.resetRequestCounts()
            let call = Task { try await relaunched.credentials(minTTL: 30) }
            let sent = ContinuousClock.now
            while try await emulator.controls.requestCounts()[.refreshToken] == 0 {
                try #require(ContinuousClock.now - sent < .seconds(30), "the renewal never reached the provider")
                try await Task.sleep(for: .milliseconds(10))
            }
            call.cancel()
            _ = try? await call.value
            try await emulator.controls.clearFaults()
            let renewed = try await relaunched.credentials(minTTL: 30)
            #expect(renewed.accessToken != credentials.accessToken)
            #expect(renewed.refreshToken != credentials.refreshToken, "the rotated refresh token was kept")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1, "the grant was sent once")
            #expect(try await live.relaunched().credentials(minTTL: 30) == renewed, "and stored")
        }
    }
}
