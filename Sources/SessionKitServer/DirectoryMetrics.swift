import CoreMetrics
import SessionKit

/// What a ``SessionDirectory`` counts, through swift-metrics (whatever backend the application bootstrapped, or
/// the factory it passed): renewals and refresh failures by kind, cache hits and misses and the cached sessions,
/// sessions created and ended. Labels carry no session id, token or account; the only dimension is a failure's
/// error code.
struct DirectoryMetrics: Sendable {
    let factory: any MetricsFactory
    let renewals: Counter
    let cacheHits: Counter
    let cacheMisses: Counter
    let cachedSessions: Gauge
    let created: Counter
    let ended: Counter

    init(factory: any MetricsFactory) {
        self.factory = factory
        renewals = Counter(label: "sessionkit_renewals_total", factory: factory)
        cacheHits = Counter(label: "sessionkit_session_cache_hits_total", factory: factory)
        cacheMisses = Counter(label: "sessionkit_session_cache_misses_total", factory: factory)
        cachedSessions = Gauge(label: "sessionkit_cached_sessions", factory: factory)
        created = Counter(label: "sessionkit_sessions_created_total", factory: factory)
        ended = Counter(label: "sessionkit_sessions_ended_total", factory: factory)
    }

    /// Counts how a renewal ended; a session the provider ended counts as ended too.
    func record(_ outcome: RenewalOutcome) {
        switch outcome {
        case .renewed:
            renewals.increment()
        case .failed(let error):
            Counter(
                label: "sessionkit_refresh_failures_total", dimensions: [("kind", "\(error.code)")], factory: factory
            )
            .increment()
            if error.code == .signInRequired { ended.increment() }
        }
    }
}
