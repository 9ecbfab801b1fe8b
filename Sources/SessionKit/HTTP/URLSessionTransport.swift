#if canImport(Darwin) || URLSessionOnLinux
    import Synchronization

    #if canImport(FoundationNetworking)
        import Foundation
        public import FoundationNetworking
    #else
        public import Foundation
    #endif

    /// An ``HTTPTransport`` on Foundation's `URLSession`: the platform's own client on Apple systems, and
    /// FoundationNetworking (libcurl) on Linux.
    ///
    /// It keeps the transport contract: redirects are not followed (the redirect is returned as the answer),
    /// the whole exchange, answer body included, ends within the timeout, bodies are capped at
    /// ``HTTPLimits/maximumBodySize``, an answer shorter than its `Content-Length` is a network failure, and
    /// nothing is cached and no cookie is kept.
    ///
    /// ```swift
    /// let provider = ProviderClient(configuration: configuration, transport: URLSessionTransport())
    /// ```
    public final class URLSessionTransport: HTTPTransport {
        private let session: URLSession
        private let exchanges: Exchanges

        /// One transport for the whole process, over an ephemeral session.
        public static let shared = URLSessionTransport()

        /// A transport over a new session made from `configuration` (ephemeral by default; its cache, cookie
        /// and credential storage are turned off whatever it says).
        public init(configuration: URLSessionConfiguration = .ephemeral) {
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.urlCredentialStorage = nil
            let exchanges = Exchanges()
            self.exchanges = exchanges
            self.session = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
        }

        deinit {
            session.finishTasksAndInvalidate()
        }

        /// Sends `request` and collects the answer, within `timeout` in all.
        public func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
            var outgoing = URLRequest(
                url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
                timeoutInterval: max(timeout.seconds, 0.001))
            outgoing.httpMethod = request.method
            for (name, value) in request.headers { outgoing.addValue(value, forHTTPHeaderField: name) }
            outgoing.httpBody = request.body
            let task = session.dataTask(with: outgoing)
            let host = request.url.host ?? "the provider"
            let outcome: Result<HTTPResponse, Failure> = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    exchanges.start(task, timeout: timeout, continuation: continuation)
                }
            } onCancel: {
                task.cancel()
            }
            switch outcome {
            case .success(let response): return response
            case .failure(.timedOut):
                throw SessionKitError(
                    code: .timeout,
                    message: "\(host) did not answer within \(timeout); the session is kept, try again later")
            case .failure(.tooLarge):
                throw SessionKitError(
                    code: .invalidResponse,
                    message: "\(host) sent a response larger than \(HTTPLimits.maximumBodySize) bytes")
            case .failure(.cancelled):
                throw SessionKitError(code: .cancelled, message: "the request to \(host) was cancelled")
            case .failure(.cutShort):
                throw SessionKitError(
                    code: .networkFailure,
                    message: "\(host) closed the connection before its answer was complete; check the network, "
                        + "the session is kept")
            case .failure(.transport(let error)):
                throw SessionKitError(
                    code: .networkFailure,
                    message:
                        "could not reach \(host) (URLError \(error.code.rawValue)); check the network, the session is kept",
                    underlyingError: error
                )
            }
        }

        /// Why an exchange failed.
        enum Failure: Error {
            case timedOut, tooLarge, cancelled, cutShort
            case transport(URLError)
        }
    }
#endif
