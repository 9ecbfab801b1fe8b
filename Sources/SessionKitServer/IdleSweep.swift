public import Logging
public import SecureStore
public import ServiceLifecycle

/// Sweeps a store's idle items (``SecureStore/SecureStoreSweeping``) every `interval`, as a
/// swift-service-lifecycle `Service`: run it in the application's service group, on one instance or all (two
/// sweeps at once delete each item once). A sweep that fails (the database is down) is tried again at the
/// next interval; the service ends at graceful shutdown or cancellation.
///
/// A session in use is written at least once per access-token lifetime, when it is renewed; reading a valid
/// token writes nothing. So `idle` must be longer than the provider's access tokens live.
///
/// ```swift
/// let sweep = IdleSweep(store: store, idleFor: .seconds(14 * 86_400), every: .seconds(600), logger: logger)
/// let app = Application(router: router, services: [store, sweep])
/// ```
public struct IdleSweep: Service {
    /// The store swept.
    public let store: any SecureStoreSweeping
    /// How long an item may go unwritten before it is swept.
    public let idle: Duration
    /// The time between two sweeps.
    public let interval: Duration
    let logger: Logger

    /// A sweep of `store`'s items idle for `idle`, every `interval`.
    public init(store: any SecureStoreSweeping, idleFor idle: Duration, every interval: Duration, logger: Logger) {
        self.store = store
        self.idle = idle
        self.interval = interval
        self.logger = logger
    }

    /// Sweeps now, then every ``interval``, until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do throws(SecureStoreError) {
                    let swept = try await store.sweep(idleFor: idle)
                    if swept > 0 { logger.info("swept idle sessions", metadata: ["count": "\(swept)"]) }
                } catch {
                    logger.warning(
                        "sweeping idle sessions failed; trying again later", metadata: ["code": "\(error.code)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
