import CoreMetrics
import SessionKitSupport
import Synchronization

/// What the back end counts of the requests it forwards, through swift-metrics: each answer by status (its
/// own refusals included) and the time to the answer's head. No path, cookie or token in any label. The counter
/// of each status is made once, so that a forwarded request only counts.
final class ForwardingMetrics: Sendable {
    let factory: any MetricsFactory
    let duration: Timer
    private let byStatus = Mutex<[Int: Counter]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
        duration = Timer(label: "sessionkit_bff_forward_duration", factory: factory)
    }

    func forwarded(status: Int, after elapsed: Duration) {
        let counter = byStatus.withLock { counters in
            if let counter = counters[status] { return counter }
            let counter = Counter(
                label: "sessionkit_bff_forwarded_total", dimensions: [("status", String(status))], factory: factory)
            counters[status] = counter
            return counter
        }
        counter.increment()
        duration.recordNanoseconds(elapsed.clampedNanoseconds)
    }
}
