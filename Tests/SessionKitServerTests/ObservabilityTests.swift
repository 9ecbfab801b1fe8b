import AuthEmulator
import Foundation
import InMemoryTracing
import Instrumentation
import MetricsTestKit
import SecureStore
import SessionKit
import SessionKitPostgresTestSupport
import SessionKitTesting
import Testing
import Tracing

@testable import SessionKitPostgres
@testable import SessionKitServer

/// The directory's counters, read through swift-metrics' test backend, and its spans and the store's through an
/// in-memory tracer: what an operator's dashboard would show, and nothing secret in any of it. The PostgreSQL
/// store's own timers are in SessionKitPostgresTests' "PostgreSQL store metrics".
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
