#if os(Linux) && AsyncHTTPClientOnLinux
    import Foundation
    import SessionKitAsyncHTTPClient

    /// The default ``HTTPTransport`` on Linux, on AsyncHTTPClient, with redirects disabled.
    ///
    /// Compiled on Linux with the `AsyncHTTPClientOnLinux` trait (on by default), the only configuration in
    /// which SessionKit links SwiftNIO: the AsyncHTTPClient code itself is in the `SessionKitAsyncHTTPClient`
    /// target, so that this core imports no NIO on any platform. On Apple platforms ``URLSessionTransport`` is
    /// the default and nothing of NIO is linked.
    ///
    /// One client serves the whole process and is created on first use, so code that never goes to the
    /// network (reading valid credentials) starts no event loop.
    public struct AsyncHTTPClientTransport: HTTPTransport {
        /// The largest response body accepted: ``HTTPLimits/maximumBodySize``.
        public static let maximumBodySize = HTTPLimits.maximumBodySize

        /// A transport over the process-wide client.
        public init() {}

        /// Sends `request` and collects the response body, up to ``maximumBodySize``.
        public func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
            let host = request.url.host ?? "the provider"
            do {
                let answer = try await HTTPClientExchange.send(
                    method: request.method, url: request.url, headers: request.headers, body: request.body,
                    timeout: timeout, maximumBodySize: Self.maximumBodySize)
                return HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
            } catch {
                throw Self.failure(error, host: host, timeout: timeout)
            }
        }

        private static func failure(_ failure: HTTPClientExchange.Failure, host: String, timeout: Duration)
            -> SessionKitError
        {
            switch failure {
            case .timedOut(let underlying):
                SessionKitError(
                    code: .timeout,
                    message: "\(host) did not answer within \(timeout); the session is kept, try again later",
                    underlyingError: underlying
                )
            case .answerUnfinished:
                SessionKitError(
                    code: .timeout,
                    message: "\(host) did not finish its answer within \(timeout); the session is kept, try again later"
                )
            case .cancelled:
                SessionKitError(code: .cancelled, message: "the request to \(host) was cancelled")
            case .bodyTooLarge(let underlying):
                SessionKitError(
                    code: .invalidResponse,
                    message: "\(host) sent a response larger than \(maximumBodySize) bytes",
                    underlyingError: underlying
                )
            case .unreachable(let underlying):
                SessionKitError(
                    code: .networkFailure,
                    message: "could not reach \(host) (\(HTTPClientExchange.Failure.reason(underlying))); "
                        + "check the network, the session is kept",
                    underlyingError: underlying
                )
            }
        }
    }
#endif
