import SessionKitSupport

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
        /// The session for direct requests.
        private let direct: URLSession
        /// A session for each proxy of ``network`` (Apple platforms).
        private let proxied: [ProxyServer: URLSession]
        private let exchanges: Exchanges
        /// The certificate authorities and proxy this transport was given.
        public let network: NetworkOptions
        /// Why every request fails, when ``network`` cannot be used: found once, at creation, so that no request
        /// reads the authority files again.
        private let refusal: SessionKitError?

        /// One transport for the whole process, over an ephemeral session.
        public static let shared = URLSessionTransport()

        /// A transport over new sessions made from `configuration` (ephemeral by default; its cache, cookie and
        /// credential storage are turned off whatever it says).
        ///
        /// - Parameter network: Certificate authorities trusted besides the system's, and a proxy. On Apple
        ///   platforms the authorities are added when the server's certificate is evaluated, and each proxy gets a
        ///   session of its own, chosen per request by ``ProxyRules``. On Linux FoundationNetworking has no setting
        ///   for either (libcurl follows `HTTPS_PROXY` and `NO_PROXY` from the environment by itself), so requests
        ///   fail with ``SessionKitError/Code/invalidConfiguration`` unless `network` is the default: use
        ///   `AsyncHTTPClientTransport` there.
        public init(configuration: URLSessionConfiguration = .ephemeral, network: NetworkOptions = NetworkOptions()) {
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.urlCredentialStorage = nil
            refusal = Self.refusal(of: network)
            let anchors = PEMCertificates.der(inFiles: network.certificateAuthorityFiles) ?? []
            let exchanges = Exchanges(anchors: anchors, proxy: network.proxy)
            self.exchanges = exchanges
            self.network = network
            direct = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
            var proxied: [ProxyServer: URLSession] = [:]
            #if canImport(Darwin)
                for proxy in Set([network.proxy?.https, network.proxy?.http].compactMap { $0 }) {
                    // URLSessionConfiguration.copy() returns a URLSessionConfiguration.
                    let settings = configuration.copy() as! URLSessionConfiguration
                    settings.connectionProxyDictionary = Self.proxyDictionary(proxy)
                    proxied[proxy] = URLSession(configuration: settings, delegate: exchanges, delegateQueue: nil)
                }
            #endif
            self.proxied = proxied
        }

        /// What makes `network` unusable here, if anything: on Linux any option at all (FoundationNetworking has no
        /// setting for them), elsewhere an authority file that holds no certificate.
        private static func refusal(of network: NetworkOptions) -> SessionKitError? {
            #if !canImport(Darwin)
                guard network.isDefault else {
                    return SessionKitError(
                        code: .invalidConfiguration,
                        message: "URLSessionTransport on Linux cannot trust extra certificate authorities or use a "
                            + "proxy: FoundationNetworking has no setting for them (libcurl follows HTTPS_PROXY and "
                            + "NO_PROXY from the environment by itself); use AsyncHTTPClientTransport(network:), the "
                            + "Linux default, or add the authority to the system's store (update-ca-certificates)")
                }
            #endif
            do {
                try network.check()
                return nil
            } catch {
                return error
            }
        }

        deinit {
            direct.finishTasksAndInvalidate()
            for session in proxied.values { session.finishTasksAndInvalidate() }
        }

        #if canImport(Darwin)
            /// CFNetwork's proxy settings for every request of a session through `proxy`.
            private static func proxyDictionary(_ proxy: ProxyServer) -> [AnyHashable: Any] {
                switch proxy.kind {
                case .http:
                    [
                        "HTTPEnable": 1, "HTTPProxy": proxy.host, "HTTPPort": proxy.port,
                        "HTTPSEnable": 1, "HTTPSProxy": proxy.host, "HTTPSPort": proxy.port,
                    ]
                case .socks5:
                    ["SOCKSEnable": 1, "SOCKSProxy": proxy.host, "SOCKSPort": proxy.port]
                }
            }
        #endif

        /// Sends `request` and collects the answer, within `timeout` in all.
        public func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
            var outgoing = URLRequest(
                url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
                timeoutInterval: max(timeout.seconds, 0.001))
            outgoing.httpMethod = request.method
            for (name, value) in request.headers { outgoing.addValue(value, forHTTPHeaderField: name) }
            outgoing.httpBody = request.body
            let host = request.url.host ?? "the provider"
            if let refusal { throw refusal }
            let session = network.proxy?.server(for: request.url).flatMap { proxied[$0] } ?? direct
            let task = session.dataTask(with: outgoing)
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
            case .failure(.transport(let error)) where Self.isCertificateFailure(error):
                let reason = error.code == .unknown ? error.localizedDescription : "URLError \(error.code.rawValue)"
                throw SessionKitError(
                    code: .networkFailure,
                    message: "the TLS handshake with \(host) failed (\(reason)); if its certificate is signed by a "
                        + "private certificate authority, trust that authority's PEM file "
                        + "(NetworkOptions.certificateAuthorityFiles); the session is kept",
                    underlyingError: CertificateTrustFailure(host: host, reason: reason, underlying: error))
            case .failure(.transport(let error)):
                throw SessionKitError(
                    code: .networkFailure,
                    message:
                        "could not reach \(host) (URLError \(error.code.rawValue)); check the network, the session is kept",
                    underlyingError: error
                )
            }
        }

        /// The URL errors of a certificate the client did not accept.
        private static let certificateFailures: Set<URLError.Code> = [
            .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .secureConnectionFailed,
        ]

        /// Whether `error` is a certificate the client did not accept: one of Foundation's codes for it, or, on
        /// Linux, where FoundationNetworking reports libcurl's TLS failures as an unknown error, libcurl's words.
        private static func isCertificateFailure(_ error: URLError) -> Bool {
            certificateFailures.contains(error.code)
                || (error.code == .unknown && error.localizedDescription.contains("SSL certificate problem"))
        }

        /// Why an exchange failed.
        enum Failure: Error {
            case timedOut, tooLarge, cancelled, cutShort
            case transport(URLError)
        }
    }
#endif
