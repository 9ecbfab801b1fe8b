import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitTesting
import Synchronization
import Testing

@testable import SessionKitServer

/// ``ClientCredentialsTokenSource`` against the emulator: one request for a storm of callers in one process and
/// across two sources sharing a store, a new one only near expiry, a failed or lapsed lease handed on.
@Suite("Client-credentials token source")
struct ClientCredentialsTokenSourceTests {
    /// A clock the test moves forward.
    final class MovableClock: Sendable {
        let offset = Mutex<TimeInterval>(0)
        var clock: SessionClock { SessionClock { [self] in Date().addingTimeInterval(self.offset.withLock { $0 }) } }
        func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
    }

    static func source(
        _ emulator: AuthEmulator, store: (any AsyncSecureStore)?, clock: SessionClock = .system,
        leaseDuration: Duration = .seconds(30)
    ) throws -> ClientCredentialsTokenSource {
        let provider = ProviderClient(
            configuration: try emulator.providerConfiguration(
                clientID: AuthEmulator.Client.confidentialID, clientSecret: AuthEmulator.Client.confidentialSecret))
        return ClientCredentialsTokenSource(
            provider: provider, audience: emulator.managementAudience, scope: "read:users", store: store,
            leaseDuration: leaseDuration, clock: clock)
    }

    static func sharedStore() -> any AsyncSecureStore {
        SynchronousStoreAdapter(MemoryStore(service: "tests.client-credentials.\(UUID().uuidString)"))
    }

    @Test("two sources sharing a store, a hundred concurrent callers: one client_credentials request")
    func oneRequestForAStorm() async throws {
        try await LiveEmulator.with { emulator in
            let store = Self.sharedStore()
            let sources = [try Self.source(emulator, store: store), try Self.source(emulator, store: store)]
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<100 {
                    group.addTask { try await sources[index % 2].token().accessToken.unsafeRawValue }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1, "every caller got the same token")
            let counts = try await emulator.controls.requestCounts()
            #expect(counts[AuthEmulator.GrantType.clientCredentials] == 1)
            #expect(try await store.keys().count == 1)
            let key = try #require(try await store.keys().first)
            let stored = ClientTokenItem.decoded(try await store.data(forKey: key))
            #expect(stored.credentials?.accessToken.unsafeRawValue == tokens.first)
            #expect(stored.leaseOwner == nil, "writing the token ended the lease")
        }
    }

    @Test("a token is kept until it nears its expiry, then replaced once")
    func replacedNearExpiry() async throws {
        try await LiveEmulator.with { emulator in
            let time = MovableClock()
            let source = try Self.source(emulator, store: Self.sharedStore(), clock: time.clock)
            let first = try await source.token()
            #expect(try await source.token().accessToken == first.accessToken)
            let lifetime = try #require(first.expiresAt).timeIntervalSinceNow
            time.advance(by: lifetime - 30)
            async let a = source.token()
            async let b = source.token()
            let (renewedA, renewedB) = try await (a, b)
            #expect(renewedA.accessToken != first.accessToken && renewedA.accessToken == renewedB.accessToken)
            let counts = try await emulator.controls.requestCounts()
            #expect(counts[AuthEmulator.GrantType.clientCredentials] == 2)
        }
    }

    @Test("a failed request releases the lease: the other instance asks at once, not after the lease")
    func failureReleasesTheLease() async throws {
        try await LiveEmulator.with { emulator in
            let store = Self.sharedStore()
            let first = try Self.source(emulator, store: store, leaseDuration: .seconds(60))
            let second = try Self.source(emulator, store: store, leaseDuration: .seconds(60))
            try await emulator.controls.inject(
                AuthEmulator.Fault(action: .status, status: 503, count: 1, grantType: .clientCredentials), into: .token)
            await #expect(throws: SessionKitError.self) { try await first.token() }
            let started = ContinuousClock.now
            _ = try await second.token()
            #expect(ContinuousClock.now - started < .seconds(10))
            let counts = try await emulator.controls.requestCounts()
            #expect(counts[AuthEmulator.GrantType.clientCredentials] == 2)
        }
    }

    @Test("a lease another instance left behind is waited out, then taken over")
    func lapsedLeaseTakenOver() async throws {
        try await LiveEmulator.with { emulator in
            let store = Self.sharedStore()
            let source = try Self.source(emulator, store: store)
            let abandoned = ClientTokenItem(leaseOwner: "gone", leaseUntil: Date().addingTimeInterval(0.5))
            try await store.setData(abandoned.encoded(), forKey: source.exchange.key)
            let started = ContinuousClock.now
            _ = try await source.token()
            #expect(ContinuousClock.now - started >= .milliseconds(400), "it waited for the other instance")
            let counts = try await emulator.controls.requestCounts()
            #expect(counts[AuthEmulator.GrantType.clientCredentials] == 1)
        }
    }

    @Test("a public client cannot ask: a configuration error, no request sent")
    func publicClient() async throws {
        try await LiveEmulator.with { emulator in
            let source = ClientCredentialsTokenSource(
                provider: ProviderClient(configuration: try emulator.providerConfiguration()),
                audience: emulator.managementAudience)
            do throws(SessionKitError) {
                _ = try await source.token()
                Issue.record("a public client got a client-credentials token")
            } catch {
                #expect(error.code == .invalidConfiguration)
            }
            let counts = try await emulator.controls.requestCounts()
            #expect(counts[AuthEmulator.Endpoint.token] == 0)
        }
    }

    @Test("errors and descriptions hold no secret")
    func noSecrets() async throws {
        try await LiveEmulator.with { emulator in
            let source = try Self.source(emulator, store: nil)
            let credentials = try await source.token()
            #expect(!"\(credentials)".contains(credentials.accessToken.unsafeRawValue))
            try await emulator.controls.inject(.status(500), into: .token)
            let fresh = try Self.source(emulator, store: nil)
            do throws(SessionKitError) {
                _ = try await fresh.token()
                Issue.record("the token request should have failed")
            } catch {
                #expect(!"\(error)".contains(AuthEmulator.Client.confidentialSecret))
                #expect(error.code == .serverError)
            }
        }
    }
}
