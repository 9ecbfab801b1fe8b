/// The default transport of a build that compiled none in (on Linux without the `AsyncHTTPClientOnLinux` and
/// `URLSessionOnLinux` traits): every request fails with a message that says what to do.
struct MissingTransport: HTTPTransport {
    func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        throw SessionKitError(
            code: .invalidConfiguration,
            message: "this build of SessionKit has no HTTP transport: pass one to ProviderClient(transport:), "
                + "or build with the AsyncHTTPClientOnLinux (default) or URLSessionOnLinux trait"
        )
    }
}
