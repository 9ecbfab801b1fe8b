import Hummingbird
import SessionKitBFF
import Synchronization

/// A router middleware that counts the requests the router sees: those the event-loop forwarding path leaves to
/// it, and no others.
final class RoutedRequests: RouterMiddleware, Sendable {
    typealias Context = BasicBFFRequestContext
    private let paths = Mutex<[String]>([])

    /// The paths the router has seen, in order.
    var seen: [String] { paths.withLock { $0 } }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        paths.withLock { $0.append(request.uri.path) }
        return try await next(request, context)
    }
}
