import AsyncHTTPClient
import ServiceLifecycle

/// The back end's upstream HTTP client (and the event loop's pooled connections) as a swift-service-lifecycle
/// `Service`: it does nothing until graceful shutdown, then closes them, after the HTTP server has let its
/// in-flight requests finish.
struct UpstreamClientService: Service {
    let client: HTTPClient
    let pools: UpstreamPools?

    func run() async throws {
        try? await gracefulShutdown()
        await pools?.shutdown()
        try await client.shutdown()
    }
}
