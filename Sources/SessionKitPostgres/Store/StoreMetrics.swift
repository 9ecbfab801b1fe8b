import CoreMetrics
import Foundation
import SecureStore
import SessionKitSupport
import Synchronization

/// What the PostgreSQL store counts, through swift-metrics: each call's duration by operation, and failed calls
/// by error code. Operations are fixed names (`reading_an_item`, `reading_items` for first reads sent together,
/// `reading_a_held_item`, `replacing_items` for conditional writes sent together, `updating_an_item`…); no key,
/// value or service
/// appears in a label.
final class StoreMetrics: Sendable {
    let factory: any MetricsFactory
    /// Each operation's timer, made once: a call only records.
    private let timers = Mutex<[String: CoreMetrics.Timer]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func succeeded(_ operation: String, after elapsed: Duration) {
        timer(operation).recordNanoseconds(elapsed.clampedNanoseconds)
    }

    func failed(_ operation: String, _ error: SecureStoreError, after elapsed: Duration) {
        timer(operation).recordNanoseconds(elapsed.clampedNanoseconds)
        Counter(
            label: "sessionkit_store_errors_total", dimensions: [("operation", operation), ("code", "\(error.code)")],
            factory: factory
        ).increment()
    }

    private func timer(_ operation: String) -> CoreMetrics.Timer {
        timers.withLock { timers in
            if let timer = timers[operation] { return timer }
            let timer = CoreMetrics.Timer(
                label: "sessionkit_store_call_duration", dimensions: [("operation", operation)], factory: factory)
            timers[operation] = timer
            return timer
        }
    }

    /// A call's action as a metric's dimension: "reading an item" → "reading_an_item". Every call makes one, so
    /// by hand: Foundation's `replacingOccurrences` goes through `NSString` on Linux, which was about a third of the
    /// store's own CPU per statement (`LOAD_STATEMENT_COST`, see `Benchmarks/server.sh`).
    static func operation(_ action: String) -> String {
        var operation = String.UnicodeScalarView()
        for scalar in action.unicodeScalars where scalar != "'" {
            operation.append(scalar == " " ? "_" : scalar)
        }
        return String(operation)
    }
}
