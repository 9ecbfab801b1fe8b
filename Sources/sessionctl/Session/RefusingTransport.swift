import SessionKit

/// A transport that fails every request with one error: what ``SessionContext/transport(_:)`` gives when the
/// network settings (a proxy variable, a certificate authority file) are wrong, so that the error reaches the user
/// when a request is made, and commands that make none are not stopped by it.
struct RefusingTransport: HTTPTransport {
    let error: SessionKitError

    func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        throw error
    }
}
