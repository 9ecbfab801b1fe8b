public import Hummingbird

/// A request context that carries the user's session to an app's own routes; ``BFFSessionMiddleware`` fills it.
public protocol BFFRequestContext: RequestContext {
    /// The session the request's cookie names, or `nil` when it carries none.
    var session: BFFSession? { get set }
}

/// The simplest ``BFFRequestContext``: Hummingbird's core context and the session.
public struct BasicBFFRequestContext: BFFRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The session the request's cookie names, or `nil`.
    public var session: BFFSession?

    /// Creates a context for a request that the server received.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        session = nil
    }
}
