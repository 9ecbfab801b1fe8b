import AsyncHTTPClient
import ServiceLifecycle

/// The back end's upstream HTTP client as a swift-service-lifecycle `Service`: it does nothing until graceful
/// shutdown, then shuts the client down, after the HTTP server has let its in-flight requests finish.
struct UpstreamClientService: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
