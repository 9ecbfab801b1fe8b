/// How a ``SessionManager`` renews: how long it may hold the cross-process lease, how long it waits for
/// another process's renewal, and how often it retries a transient failure within one renewal.
public struct RenewalPolicy: Sendable {
    /// How long a renewal lease lasts if its holder never clears it (a crashed process).
    public var leaseDuration: Duration
    /// How long a caller waits for another process's renewal before giving up with a retryable error.
    public var waitTimeout: Duration
    /// How often the store is re-read while waiting for another process.
    public var pollInterval: Duration
    /// Extra attempts after a transient failure (network, timeout, 5xx), so a refresh response lost on
    /// the way is retried while the provider's reuse interval still accepts the old refresh token.
    public var transientRetries: Int
    /// The pause before such a retry.
    public var retryDelay: Duration

    /// Creates a policy; the defaults suit apps and CLIs.
    public init(
        leaseDuration: Duration = .seconds(30),
        waitTimeout: Duration = .seconds(35),
        pollInterval: Duration = .milliseconds(25),
        transientRetries: Int = 1,
        retryDelay: Duration = .milliseconds(200)
    ) {
        self.leaseDuration = leaseDuration
        self.waitTimeout = waitTimeout
        self.pollInterval = pollInterval
        self.transientRetries = transientRetries
        self.retryDelay = retryDelay
    }
}
