public import SecureStore
public import ServiceLifecycle

/// Keeps a ``SessionDirectory``'s memory in step with the changes every instance makes to the shared store
/// (renewals, sign-outs, sweeps), as a swift-service-lifecycle `Service`: see
/// ``SessionDirectory/follow(_:retryDelay:)``. It ends at graceful shutdown or cancellation.
///
/// ```swift
/// let app = Application(router: router, services: [store, ChangeFollower(directory: sessions, feed: store)])
/// ```
public struct ChangeFollower: Service {
    /// The directory kept in step.
    public let directory: SessionDirectory
    /// Where the changes come from.
    public let feed: any SecureStoreChangeFeed
    /// How long to wait before listening again after the feed ended.
    public let retryDelay: Duration

    /// Follows `feed` for `directory`.
    public init(directory: SessionDirectory, feed: any SecureStoreChangeFeed, retryDelay: Duration = .seconds(1)) {
        self.directory = directory
        self.feed = feed
        self.retryDelay = retryDelay
    }

    /// Follows the feed until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await directory.follow(feed, retryDelay: retryDelay)
        }
    }
}
