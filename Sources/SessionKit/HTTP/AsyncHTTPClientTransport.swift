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
    /// network (reading valid credentials) starts no event loop. ``NetworkOptions`` add certificate authorities and
    /// a proxy; each combination gets a client of its own, also made once.
    ///
    /// ```swift
    /// let transport = AsyncHTTPClientTransport(network: try .fromEnvironment())
    /// ```
    public struct AsyncHTTPClientTransport: HTTPTransport {
        /// The largest response body accepted: ``HTTPLimits/maximumBodySize``.
        public static let maximumBodySize = HTTPLimits.maximumBodySize

        /// The certificate authorities and proxy this transport uses.
        public let network: NetworkOptions

        /// A transport over the process-wide client: the system's trust store, no proxy.
        public init() {
            network = NetworkOptions()
        }

        /// A transport that trusts `network`'s certificate authorities besides the system's and goes through its
        /// proxy. The files are read on the first request, which fails with
        /// ``SessionKitError/Code/invalidConfiguration`` when one holds no certificate.
        public init(network: NetworkOptions) {
            self.network = network
        }

        /// The way to `url`: its proxy, if one applies, and the extra authorities.
        private func route(to url: URL) -> HTTPClientExchange.Route {
            let proxy = network.proxy?.server(for: url).map {
                HTTPClientExchange.Route.Proxy(
                    socks: $0.kind == .socks5, host: $0.host, port: $0.port, user: $0.user,
                    password: $0.password?.unsafeRawValue)
            }
            return HTTPClientExchange.Route(proxy: proxy, trustFiles: network.certificateAuthorityFiles)
        }

        /// Sends `request` and collects the response body, up to ``maximumBodySize``.
        public func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
            let host = request.url.host ?? "the provider"
            do {
                let answer = try await HTTPClientExchange.send(
                    method: request.method, url: request.url, headers: request.headers, body: request.body,
                    timeout: timeout, maximumBodySize: Self.maximumBodySize, route: route(to: request.url))
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
            case .tlsFailed(let reason, let underlying):
                SessionKitError(
                    code: .networkFailure,
                    message: "the TLS handshake with \(host) failed (\(reason)); if its certificate is signed by a "
                        + "private certificate authority, trust that authority's PEM file "
                        + "(NetworkOptions.certificateAuthorityFiles); the session is kept",
                    underlyingError: CertificateTrustFailure(host: host, reason: reason, underlying: underlying)
                )
            case .trustFileUnreadable(let path, let underlying):
                SessionKitError(
                    code: .invalidConfiguration,
                    message: "the certificate authority file \(path) holds no PEM certificate that can be loaded; "
                        + "give the path of the authority's certificate in PEM form",
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
