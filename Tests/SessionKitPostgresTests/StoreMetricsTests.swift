import Foundation
import MetricsTestKit
import SecureStore
import SessionKitPostgresTestSupport
import SessionKitTestSupport
import Testing

@testable import SessionKitPostgres

/// The PostgreSQL store's own counters, read through swift-metrics' test backend: what an operator's dashboard
/// would show, and nothing secret in any of it. The directory's are in SessionKitServerTests' "Metrics and spans".
@Suite("PostgreSQL store metrics")
struct StoreMetricsTests {
    /// Every label and dimension TestMetrics saw, for the check that no secret is in any.
    static func everything(_ metrics: TestMetrics) -> String {
        let counters = metrics.counters.map { "\($0.label) \($0.dimensions)" }
        let timers = metrics.timers.map { "\($0.label) \($0.dimensions)" }
        return (counters + timers).joined(separator: "\n")
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
