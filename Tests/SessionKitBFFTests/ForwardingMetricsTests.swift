import AuthEmulator
import Foundation
import MetricsTestKit
import SessionKitBFF
import Testing

/// The back end's forwarding counters, read through swift-metrics' test backend.
@Suite("Forwarding metrics", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct ForwardingMetricsTests {
    @Test("each forwarded answer is counted by status, refusals included, and timed; no path or cookie in a label")
    func countedByStatus() async throws {
        let metrics = TestMetrics()
        try await ForwardingTests.withSignedIn(metrics: metrics) { _, _, instance, browser in
            for _ in 0..<3 {
                let page = try await browser.get(instance.at("/api/orders/secret-order-7"), headers: [("X-CSRF", "1")])
                #expect(page.status == 200)
            }
            #expect(try await browser.get(instance.at("/api/orders/7")).status == 403, "no anti-forgery header")
            #expect(try metrics.expectCounter("sessionkit_bff_forwarded_total", [("status", "200")]).totalValue == 3)
            #expect(try metrics.expectCounter("sessionkit_bff_forwarded_total", [("status", "403")]).totalValue == 1)
            #expect(try metrics.expectTimer("sessionkit_bff_forward_duration").values.count == 4)
            let labels = metrics.counters.map { "\($0.label) \($0.dimensions)" }.joined(separator: "\n")
            #expect(!labels.contains("secret-order"))
            #expect(!labels.contains(browser.cookies["sessionkit"] ?? "no cookie"))
        }
    }
}
