import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Synchronization
import Testing

/// Issue 17: once the provider has answered a refresh grant, nothing that fails afterwards may send the
/// same refresh token again, and nothing may throw the new one away. The emulator rotates refresh tokens
/// with a reuse interval of 0 (Auth0's default): a second use of a spent token revokes the whole family,
/// so every test below would end the session if the grant were sent twice.
@Suite("Renewal safety: a failure after the provider answered never signs anyone out")
struct RenewalSafetyTests {
    /// A manager over the live session's store with a provider client of its own, as a new process has:
    /// no discovery document and no key set loaded yet.
    private func freshProcess(
        _ live: LiveSession, configure: (inout ProviderConfiguration) -> Void = { _ in },
        lockTimeout: Duration = .seconds(5), policy: RenewalPolicy = .init(),
        transport: any HTTPTransport = ProviderClient.defaultTransport
    ) throws -> SessionManager {
        var configuration = live.configuration
        configure(&configuration)
        return SessionManager(
            provider: ProviderClient(configuration: configuration, transport: transport, clock: live.time.clock),
            store: try LiveSession.makeStore(live.folder, lockTimeout: lockTimeout),
            clock: live.time.clock,
            policy: policy
        )
    }

    @Test("a key set that fails in a new process fails the renewal before the refresh token is sent")
    func keySetFirst() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            live.expire(try await live.signIn())
            let session = try freshProcess(live)
            try await emulator.controls.resetRequestCounts()
            try await emulator.controls.inject(.status(503).times(1), into: .jwks)
            await #expect(throws: SessionKitError.self) { try await session.renew() }
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 0, "nothing was spent")
            #expect(try await session.hasSession())
            let renewed = try await session.renew()
            #expect(renewed.isValid(now: live.time.clock.now()))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
        }
    }

    @Test("a key set that fails after the answer keeps the new tokens and the earlier ID token")
    func keySetAfterAnswer() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let signedIn = try await live.signIn()
            let session = try freshProcess(live) { $0.jwksRefetchInterval = .zero }
            // Keys loaded, then rotated at the provider: the renewed ID token names a key to fetch afterwards.
            _ = try await session.provider.validateIDToken(try #require(signedIn.idToken))
            live.expire(signedIn)
            _ = try await emulator.controls.rotateSigningKeys()
            try await emulator.controls.resetRequestCounts()
            try await emulator.controls.inject(.status(503).times(1), into: .jwks)
            let renewed = try await session.credentials()
            #expect(renewed.accessToken != signedIn.accessToken)
            #expect(renewed.refreshToken != signedIn.refreshToken, "the rotated refresh token is kept")
            #expect(renewed.idToken == signedIn.idToken, "the unvalidated ID token is not kept")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            #expect(try await live.relaunched().storedCredentials() == renewed, "saved")
            // The kept refresh token is the live one: the next renewal works.
            let again = try await live.relaunched().renew()
            #expect(again.isValid(now: live.time.clock.now()))
        }
    }

    @Test("a renewed ID token that is refused keeps the new refresh token, and the session renews later")
    func refusedIDToken() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let signedIn = try await live.signIn()
            // A key rotated now, and a key set that never publishes it to this process (a stale cache in front of
            // the provider; the JWKS answers are rewritten, everything else is real): its one refetch for the
            // new key id finds nothing.
            let hidden = Mutex<String?>(nil)
            let stale = RewritingTransport(answersTo: "/.well-known/jwks.json") { jwks in
                guard let kid = hidden.withLock({ $0 }), case .array(let keys)? = jwks["keys"] else { return }
                jwks["keys"] = .array(keys.filter { $0.objectValue?["kid"]?.stringValue != kid })
            }
            let session = try freshProcess(live, transport: stale)
            _ = try await session.provider.validateIDToken(try #require(signedIn.idToken))
            live.expire(signedIn)
            let newKey = try await emulator.controls.rotateSigningKeys()
            hidden.withLock { $0 = newKey }
            do {
                _ = try await session.renew()
                Issue.record("an ID token signed with an unknown key must be refused")
            } catch let error as SessionKitError {
                #expect(error.code == .validationFailed, "\(error)")
                #expect(error.message.contains("new refresh token is kept"), "\(error)")
            }
            let stored = try #require(try await session.storedCredentials())
            #expect(stored.refreshToken != signedIn.refreshToken, "the new refresh token was saved")
            #expect(stored.accessToken == signedIn.accessToken, "nothing else from the refused answer is used")
            // Another process, whose key set has the new key, renews with it: the family was not revoked.
            let renewed = try await live.relaunched().renew()
            #expect(renewed.isValid(now: live.time.clock.now()))
        }
    }

    @Test("a provider that rotates its signing key at the refresh: the renewed ID token gets one key-set fetch")
    func keyRotatedAtRefresh() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let signedIn = try await live.signIn()
            // A fresh process with the default refetch interval (a minute): it loads the key set just before it
            // sends the refresh token, and the provider rotates its key while it answers.
            let session = try freshProcess(live)
            live.expire(signedIn)
            try await emulator.controls.inject(.latency(1).only(.refreshToken).times(1), into: .token)
            try await emulator.controls.resetRequestCounts()
            let renewal = Task { try await session.credentials() }
            let sent = ContinuousClock.now
            while try await emulator.controls.requestCounts()[.refreshToken] == 0 {
                try #require(ContinuousClock.now - sent < .seconds(10), "the renewal never reached the provider")
                try await Task.sleep(for: .milliseconds(10))
            }
            let newKey = try await emulator.controls.rotateSigningKeys()
            let renewed = try await renewal.value
            #expect(renewed.idTokenClaims?.header.keyID == newKey, "the renewed ID token is signed with the new key")
            #expect(renewed.idToken != signedIn.idToken, "and it was validated and kept")
            #expect(try await emulator.controls.requestCounts()[.jwks] == 2, "the key set before the grant, then once")
        }
    }

    @Test("a store write that fails after the answer is set aside and saved by the next caller, not re-sent")
    func storeWriteAfterAnswer() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let signedIn = try await live.signIn()
            live.expire(signedIn)
            let session = try freshProcess(live, lockTimeout: .milliseconds(300))
            try await emulator.controls.resetRequestCounts()
            // The answer is held back a second; meanwhile another process takes the store's lock and keeps it.
            try await emulator.controls.inject(.latency(1).only(.refreshToken).times(1), into: .token)
            let renewal = Task { try await session.credentials() }
            try await waitUntil { try await emulator.controls.requestCounts()[.refreshToken] == 1 }
            let holder = try FileLockHolder(folder: live.folder)
            let failure = await renewal.result
            guard case .failure(let error as SessionKitError) = failure else {
                holder.release()
                Issue.record("the store write cannot succeed while the lock is held: \(failure)")
                return
            }
            #expect(error.code == .storeUnavailable && error.isRetryable, "\(error)")
            #expect(error.message.contains("journal"), "\(error)")
            let journal = try #require(
                try FileManager.default.contentsOfDirectory(atPath: live.folder.path).first { $0.hasSuffix(".journal") }
            )
            let mode =
                try FileManager.default.attributesOfItem(atPath: live.folder.appendingPathComponent(journal).path)[
                    .posixPermissions] as? Int
            #expect(mode == 0o600)
            // Still locked: this process serves the renewed tokens from memory.
            let fromMemory = try await session.credentials()
            #expect(fromMemory.accessToken != signedIn.accessToken)
            holder.release()
            // Another process finds the journal and saves it: no second grant, the same tokens.
            let other = try live.relaunched()
            #expect(try await other.credentials() == fromMemory)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: live.folder.path).contains(journal)))
            // And the saved refresh token is the live one.
            #expect(try await other.renew().isValid(now: live.time.clock.now()))
        }
    }

    @Test("a lease lasts as long as the request: a second manager waits instead of spending the token again")
    func leaseCoversRequest() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let signedIn = try await live.signIn()
            live.expire(signedIn)
            let short = RenewalPolicy(leaseDuration: .milliseconds(300))
            // A request timeout with room for a loaded machine: a 2 s answer that timed out at 5 s was sent again
            // (CI, 74 s into a parallel run), which spends the rotated token twice whatever the lease does.
            let roomy: (inout ProviderConfiguration) -> Void = { $0.requestTimeout = .seconds(30) }
            let first = try freshProcess(live, configure: roomy, policy: short)
            let second = try freshProcess(live, configure: roomy, policy: short)
            try await emulator.controls.resetRequestCounts()
            try await emulator.controls.inject(.latency(2).only(.refreshToken).times(1), into: .token)
            let renewal = Task { try await first.credentials() }
            try await waitUntil { try await emulator.controls.requestCounts()[.refreshToken] == 1 }
            try await Task.sleep(for: .milliseconds(600))  // past the policy's lease, not past the request
            let joined = try await second.credentials()
            #expect(try await renewal.value == joined)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
        }
    }

    @Test("a holder that stalls past its lease sends nothing: the waiter renews from the record it leased")
    func stalledHolder() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            live.expire(try await live.signIn())
            let short = RenewalPolicy(leaseDuration: .milliseconds(300))
            let roomy: (inout ProviderConfiguration) -> Void = { $0.requestTimeout = .seconds(30) }
            let holder = try freshProcess(live, configure: roomy, policy: short)
            let waiter = try freshProcess(live, configure: roomy, policy: short)
            try await emulator.controls.resetRequestCounts()
            // The holder leases the session, then stalls in its key-set fetch; meanwhile its lease lapses (the
            // clock jumps, as a laptop that slept) and the waiter takes the session over and renews it.
            try await emulator.controls.inject(.latency(2).times(1), into: .jwks)
            let stalled = Task { try await holder.credentials() }
            try await waitUntil { try await emulator.controls.requestCounts()[.jwks] == 1 }
            #expect(holder.heldRecordShowsRenewal, "the holder leased the session before fetching the keys")
            live.time.advance(by: 3600)
            let renewed = try await waiter.credentials()
            #expect(try await stalled.value == renewed, "the holder takes the waiter's renewal")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1, "the stale token was never sent")
            // The family was not revoked for a reuse: the rotated refresh token still renews.
            #expect(try await waiter.renew().accessToken != renewed.accessToken)
        }
    }

    @Test("an answer whose body stalls ends with a timeout, and the session is kept")
    func stalledBody() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            live.expire(try await live.signIn())
            let session = try freshProcess(
                live, configure: { $0.requestTimeout = .seconds(1) }, policy: .init(transientRetries: 0))
            _ = try await session.provider.metadata()
            try await emulator.controls.inject(.stalledBody.only(.refreshToken), into: .token)
            let started = ContinuousClock.now
            let renewal = Task { try await session.renew() }
            let watchdog = Task {
                try await Task.sleep(for: .seconds(20))
                renewal.cancel()
            }
            let result = await renewal.result
            watchdog.cancel()
            #expect(ContinuousClock.now - started < .seconds(10), "the body's deadline ends the wait")
            guard case .failure(let error as SessionKitError) = result else {
                Issue.record("a stalled body must fail the renewal: \(result)")
                return
            }
            #expect(error.code == .timeout, "\(error)")
            #expect(try await session.hasSession())
        }
    }

    @Test("a minTTL longer than the tokens live is met by a fresh token: concurrent callers renew once")
    func minTTLLongerThanLifetime() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let signedIn = try await live.signIn()
            let lifetime = try #require(signedIn.expiresAt).timeIntervalSince(signedIn.receivedAt)
            live.expire(signedIn)
            try await emulator.controls.resetRequestCounts()
            let managers = try (0..<4).map { _ in try freshProcess(live) }
            let tokens = try await withThrowingTaskGroup(of: Credentials.self) { group in
                for manager in managers { group.addTask { try await manager.credentials(minTTL: lifetime + 60) } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1.accessToken.unsafeRawValue) }
            }
            #expect(tokens.count == 1)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            let served = try await managers[0].credentials(minTTL: lifetime + 60)
            #expect(served.livesShorter(than: lifetime + 60))
            // Once a tenth of its life has gone, it is no longer as good as the provider gives.
            live.time.advance(by: lifetime * 0.2)
            _ = try await managers[0].credentials(minTTL: lifetime + 60)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2)
        }
    }
}

@Suite("An unreadable session can be discarded, a readable one is left alone")
struct DiscardUnreadableTests {
    @Test("a damaged store file and a damaged record are each discarded; a good session is kept")
    func discard() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            try await live.signIn()
            #expect(try await live.session.discardUnreadableSession() == false, "a readable session stays")
            #expect(try await live.session.hasSession())
            // The whole file damaged: nothing in it can be read.
            let file = try #require(
                try FileManager.default.contentsOfDirectory(atPath: live.folder.path).first { $0.hasSuffix(".store") })
            let path = live.folder.appendingPathComponent(file)
            var bytes = try Data(contentsOf: path)
            bytes[bytes.count - 5] ^= 0xFF
            try bytes.write(to: path)
            let relaunched = try live.relaunched()
            await #expect(throws: SessionKitError.self) { try await relaunched.hasSession() }
            #expect(try await relaunched.discardUnreadableSession())
            #expect(try await relaunched.hasSession() == false)
            // Only the record damaged: the store reads, the record does not decode.
            try await live.signIn()
            let store = try LiveSession.makeStore(live.folder)
            let key = try #require(try store.keys().first { $0.hasPrefix("sessionkit.session|") })
            try store.setData(Data("{not json".utf8), forKey: key)
            let again = try live.relaunched()
            #expect(try await again.discardUnreadableSession())
            #expect(try store.data(forKey: key) == nil)
        }
    }

    /// A shared database's row sealed with a key this instance lacks reads as damaged, but the other rows read: only
    /// that session goes, never every user's.
    @Test("an unreadable item among readable ones is discarded alone; a store that cannot delete it goes whole")
    func oneItemAlone() async throws {
        try await LiveEmulator.with { emulator in
            let live = try LiveSession.make(emulator)
            defer { live.cleanUp() }
            let credentials = try await live.signIn()
            for wholeStoreUnreadable in [false, true] {
                let store = UnreadableItemStore(service: "tests.unreadable-item.\(wholeStoreUnreadable)")
                let manager = SessionManager(provider: live.provider, store: store, clock: live.time.clock)
                try await manager.store(credentials)
                try store.setString("another user's session", forKey: "other")
                store.unreadable.withLock { $0 = (manager.storeKey, wholeStoreUnreadable) }
                #expect(try await manager.discardUnreadableSession())
                store.unreadable.withLock { $0 = nil }
                #expect(try store.data(forKey: manager.storeKey) == nil)
                #expect(
                    try store.string(forKey: "other") == (wholeStoreUnreadable ? nil : "another user's session"),
                    "whole store unreadable: \(wholeStoreUnreadable)")
            }
        }
    }
}

/// A memory store in which one item reads as damaged (as a row sealed with an unknown key does), or, when `whole`,
/// the whole store does (as one damaged file holding every item does: nothing can be deleted alone).
private final class UnreadableItemStore: SecureStore {
    private let base: MemoryStore
    /// The item that reads as damaged, and whether the whole store does.
    let unreadable = Mutex<(key: String, whole: Bool)?>(nil)

    init(service: String) { base = MemoryStore(service: service) }

    var service: String { base.service }

    private func check(_ key: String?) throws(SecureStoreError) {
        guard let (bad, whole) = unreadable.withLock({ $0 }), whole || key == bad else { return }
        throw SecureStoreError(code: .corrupted, message: "sealed with a key this store does not have")
    }

    func data(forKey key: String) throws(SecureStoreError) -> Data? {
        try check(key)
        return try base.data(forKey: key)
    }

    func setData(_ data: Data, forKey key: String) throws(SecureStoreError) { try base.setData(data, forKey: key) }

    func deleteItem(forKey key: String) throws(SecureStoreError) {
        if unreadable.withLock({ $0?.whole == true }) { try check(key) }
        try base.deleteItem(forKey: key)
    }

    func deleteAll() throws(SecureStoreError) { try base.deleteAll() }

    func keys() throws(SecureStoreError) -> [String] {
        try check(nil)
        return try base.keys()
    }

    func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
        try check(key)
        return try base.update(forKey: key, transform)
    }
}
