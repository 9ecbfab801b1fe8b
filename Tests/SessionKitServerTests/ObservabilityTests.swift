import AuthEmulator
import Foundation
import InMemoryTracing
import Instrumentation
import MetricsTestKit
import SecureStore
import SessionKit
import SessionKitTesting
import Testing
import Tracing

@testable import SessionKitPostgres
@testable import SessionKitServer

/// The directory's and the store's counters, read through swift-metrics' test backend, and their spans through
/// an in-memory tracer: what an operator's dashboard would show, and nothing secret in any of it.
@Suite("Metrics and spans")
struct ObservabilityTests {
    /// Every label and dimension TestMetrics saw, for the check that no secret is in any.
    static func everything(_ metrics: TestMetrics) -> String {
        let counters = metrics.counters.map { "\($0.label) \($0.dimensions)" }
        let timers = metrics.timers.map { "\($0.label) \($0.dimensions)" }
        return (counters + timers).joined(separator: "\n")
    }

    @Test("renewals, refresh failures by kind, cache hits and misses, sessions created and ended")
    func directoryCounters() async throws {
        try await LiveEmulator.with { emulator in
            let metrics = TestMetrics()
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let directory = SessionDirectory(
                provider: provider, store: MemoryStore(service: "tests.metrics"), metrics: metrics)
            func signIn(expired: Bool) async throws -> Credentials {
                var credentials = try await provider.signIn(
                    username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
                if expired { credentials.expiresAt = Date(timeIntervalSinceNow: -1) }
                return credentials
            }
            let valid = try await directory.create(try await signIn(expired: false))
            let expired = try await directory.create(try await signIn(expired: true))
            for _ in 0..<3 { _ = try await directory.credentials(for: valid) }
            let renewed = try await directory.credentials(for: expired)
            #expect(try metrics.expectCounter("sessionkit_sessions_created_total").totalValue == 2)
            #expect(try metrics.expectCounter("sessionkit_renewals_total").totalValue == 1)
            #expect(try metrics.expectCounter("sessionkit_session_cache_hits_total").totalValue == 4)
            #expect(try metrics.expectGauge("sessionkit_cached_sessions").lastValue == 2)

            // The provider ends the grant: the next renewal fails as signInRequired, and the session ends.
            _ = try await emulator.controls.revokeGrants(forUser: AuthEmulator.User.aliceID)
            var gone = renewed
            gone.expiresAt = Date(timeIntervalSinceNow: -1)
            let doomed = try await directory.create(gone)
            await #expect(throws: SessionKitError.self) { try await directory.credentials(for: doomed) }
            let failures = try metrics.expectCounter(
                "sessionkit_refresh_failures_total", [("kind", "signInRequired")])
            #expect(failures.totalValue == 1)
            try await directory.logout(valid, revoke: false)
            #expect(try metrics.expectCounter("sessionkit_sessions_ended_total").totalValue == 2)
            let seen = Self.everything(metrics)
            for secret in [renewed.accessToken.unsafeRawValue, valid.rawValue, expired.rawValue] {
                #expect(!seen.contains(secret))
            }
        }
    }

    @Test(
        "the PostgreSQL store times each call by operation and counts failures by code",
        .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
    func storeTimers() async throws {
        let metrics = TestMetrics()
        _ = try await TestPostgres.store()  // the tables exist once a test store is made
        guard let url = TestPostgres.url else { throw TestPostgres.Missing() }
        var configuration = try PostgresSessionStore.Configuration(url: url)
        configuration.connectionIdleTimeout = .seconds(1)
        let store = TestPostgres.running(
            try PostgresSessionStore(
                service: "tests.metrics.\(UUID().uuidString)", configuration: configuration,
                keys: TestPostgres.keys(), metrics: metrics))
        try await store.setString("v", forKey: "session-key")
        _ = try await store.string(forKey: "session-key")
        try await store.update(forKey: "session-key") { _ in Data("w".utf8) }
        let reads = try metrics.expectTimer("sessionkit_store_call_duration", [("operation", "reading_an_item")])
        #expect(reads.values.count == 1)
        #expect(reads.values.allSatisfy { $0 > 0 })
        #expect(
            try metrics.expectTimer("sessionkit_store_call_duration", [("operation", "updating_an_item")]).values.count
                == 1)
        #expect(await storeError { _ = try await store.data(forKey: "") } != nil)
        // An empty key is refused before any call: nothing counted. A failing call is.
        var down = configuration
        down.port = 1
        down.acquireTimeout = .milliseconds(200)
        let unreachable = TestPostgres.running(
            try PostgresSessionStore(
                service: "tests.metrics.down", configuration: down, keys: TestPostgres.keys(), metrics: metrics))
        _ = await storeError { _ = try await unreachable.data(forKey: "k") }
        let errors = try metrics.expectCounter(
            "sessionkit_store_errors_total", [("operation", "reading_an_item"), ("code", "unavailable")])
        #expect(errors.totalValue == 1)
        #expect(!Self.everything(metrics).contains("session-key"))
    }
}

/// One in-memory tracer for the whole test process: swift-distributed-tracing's system is bootstrapped once.
enum TestTracer {
    static let shared: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}

@Suite("Spans")
struct SpanTests {
    @Test(
        "a renewal and each store call leave a span; no token, key or session id in any attribute",
        .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
    func spans() async throws {
        let tracer = TestTracer.shared
        try await LiveEmulator.with { emulator in
            let store = try await TestPostgres.store()
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let directory = SessionDirectory(provider: provider, store: store)
            var credentials = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            credentials.expiresAt = Date(timeIntervalSinceNow: -1)
            let id = try await directory.create(credentials)
            let renewed = try await directory.credentials(for: id)
            _ = try await directory.credentials(for: id)  // from memory: no span
            let spans = tracer.finishedSpans
            #expect(spans.contains { $0.operationName == "sessionkit.credentials.slow-path" })
            let storeSpans = spans.filter {
                $0.operationName == "sessionkit.store"
                    && $0.attributes["db.operation.name"]?.toSpanAttribute()
                        == "updating_an_item"
            }
            #expect(!storeSpans.isEmpty)
            let everything = spans.map { "\($0.operationName) \($0.attributes)" }.joined(separator: "\n")
            for secret in [
                credentials.refreshToken?.unsafeRawValue, renewed.accessToken.unsafeRawValue, id.rawValue,
                id.account,
            ].compactMap({ $0 }) {
                #expect(!everything.contains(secret))
            }
        }
    }
}
