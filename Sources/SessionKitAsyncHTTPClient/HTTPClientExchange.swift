import AsyncHTTPClient
package import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SessionKitSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP exchange on AsyncHTTPClient, with redirects disabled: what SessionKit's `AsyncHTTPClientTransport`
/// sends its requests with on Linux.
///
/// This target holds all of SessionKit's AsyncHTTPClient and SwiftNIO code for the client side, so that the
/// core imports neither: on Linux the core depends on it (the `AsyncHTTPClientOnLinux` trait, on by default),
/// on Apple platforms, where `URLSession` is the transport, nothing links it. Its API uses Foundation types only
/// and is `package`: the public transport is the core's `AsyncHTTPClientTransport`.
///
/// One client serves the whole process and is created on first use, so code that never goes to the network
/// (reading valid credentials) starts no event loop; a ``Route`` with a proxy or extra certificate authorities
/// gets a client of its own, made once and kept for the process.
package enum HTTPClientExchange {
    /// What went wrong, for the core to turn into its own error.
    package enum Failure: Error {
        /// No answer within the timeout.
        case timedOut(underlying: any Error)
        /// An answer began but its body did not end within the timeout.
        case answerUnfinished
        /// The caller's task was cancelled.
        case cancelled
        /// The answer's body was larger than the limit.
        case bodyTooLarge(underlying: any Error)
        /// The TLS handshake failed: most often a certificate no trusted authority signed.
        case tlsFailed(reason: String, underlying: any Error)
        /// A certificate authority file of the route could not be loaded.
        case trustFileUnreadable(path: String, underlying: any Error)
        /// Any other failure to reach the server or read its answer.
        case unreachable(underlying: any Error)

        /// Why the server could not be reached, in words that hold no URL, header or body: for NIO's channel
        /// errors their case ("ChannelError.ioOnClosedChannel"), for a failed system call the system's words
        /// ("Connection refused"), else the error's type.
        package static func reason(_ error: any Error) -> String {
            switch error {
            case let error as ChannelError: "ChannelError.\(error)"
            case let error as IOError: String(cString: strerror(error.errnoCode))
            case let error as NIOConnectionError:
                if let first = error.connectionErrors.first {
                    reason(first.error)
                } else if error.dnsAError != nil || error.dnsAAAAError != nil {
                    "its name did not resolve"
                } else {
                    "NIOConnectionError"
                }
            default: String(describing: type(of: error))
            }
        }
    }

    /// An answer: status, header fields in order, whole body.
    package struct Answer: Sendable {
        package var status: Int
        package var headers: [(name: String, value: String)]
        package var body: Data
    }

    /// How one request reaches its server: through which proxy, trusting which authorities besides the system's.
    package struct Route: Hashable, Sendable {
        /// A proxy: an HTTP proxy (`CONNECT` for https) or a SOCKS5 one, with basic authentication if asked.
        package struct Proxy: Hashable, Sendable {
            package var socks: Bool
            package var host: String
            package var port: Int
            package var user: String?
            package var password: String?

            package init(socks: Bool, host: String, port: Int, user: String?, password: String?) {
                self.socks = socks
                self.host = host
                self.port = port
                self.user = user
                self.password = password
            }
        }

        package var proxy: Proxy?
        package var trustFiles: [String]

        package init(proxy: Proxy? = nil, trustFiles: [String] = []) {
            self.proxy = proxy
            self.trustFiles = trustFiles
        }

        /// The direct route with the system's trust alone.
        package static let direct = Route()
    }

    /// The certificates of the route's trust files.
    private static func trustRoots(_ route: Route) throws(Failure) -> [NIOSSLCertificate] {
        var roots: [NIOSSLCertificate] = []
        for path in route.trustFiles {
            do {
                roots += try NIOSSLCertificate.fromPEMFile(path)
            } catch {
                throw .trustFileUnreadable(path: path, underlying: error)
            }
        }
        return roots
    }

    private static func makeClient(_ route: Route, trusting roots: [NIOSSLCertificate]) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout.connect = .seconds(10)
        // Idle connections close before the servers' own keep-alive ends (5 s in uvicorn and Node.js): a request
        // sent on a connection the server is closing at that moment fails without reaching it.
        configuration.connectionPool = .init(idleTimeout: .seconds(4))
        // A connection that cannot be made fails its request at once (refused, unresolved, a certificate no trusted
        // authority signed) instead of being retried until the connect timeout: the caller gets the typed,
        // retryable error with its cause now, keeps the session, and decides when to try again.
        configuration.connectionPool.retryConnectionEstablishment = false
        if !roots.isEmpty {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(roots)]
            configuration.tlsConfiguration = tls
        }
        if let proxy = route.proxy {
            if proxy.socks {
                configuration.proxy = .socksServer(host: proxy.host, port: proxy.port)
            } else {
                let authorization = proxy.user.map {
                    HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "")
                }
                configuration.proxy = .server(host: proxy.host, port: proxy.port, authorization: authorization)
            }
        }
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    private static let client = makeClient(.direct, trusting: [])

    /// The clients of routes other than the direct one, each made on its first request and kept for the process
    /// (a program has one or two routes: its provider's, and perhaps a loopback server's).
    private static let routed = Mutex<[Route: HTTPClient]>([:])

    private static func client(for route: Route) throws(Failure) -> HTTPClient {
        if route == .direct { return client }
        if let existing = routed.withLock({ $0[route] }) { return existing }
        let made = makeClient(route, trusting: try trustRoots(route))
        let (kept, spare) = routed.withLock { clients -> (HTTPClient, HTTPClient?) in
            if let existing = clients[route] { return (existing, made) }
            clients[route] = made
            return (made, nil)
        }
        if let spare { try? spare.syncShutdown() }
        return kept
    }

    /// Sends a request and collects the whole answer, body included, within `timeout`, refusing bodies larger
    /// than `maximumBodySize`.
    package static func send(
        method: String, url: URL, headers: [(name: String, value: String)], body: Data?, timeout: Duration,
        maximumBodySize: Int, route: Route = .direct
    ) async throws(Failure) -> Answer {
        let client = try client(for: route)
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: method)
        for (name, value) in headers {
            outgoing.headers.add(name: name, value: value)
        }
        if let body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            return try await exchange(outgoing, on: client, timeout: timeout, maximumBodySize: maximumBodySize)
        } catch is BodyDeadlineExceeded {
            throw .answerUnfinished
        } catch let error as HTTPClientError
            where [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error)
        {
            throw .timedOut(underlying: error)
        } catch is CancellationError {
            throw .cancelled
        } catch let error as NIOTooManyBytesError {
            throw .bodyTooLarge(underlying: error)
        } catch let error as NIOSSLError {
            throw .tlsFailed(reason: tlsReason(error), underlying: error)
        } catch {
            throw .unreachable(underlying: error)
        }
    }

    /// Thrown when the whole exchange, answer body included, outlasts its timeout.
    private struct BodyDeadlineExceeded: Error {}

    /// Sends `request` and collects the answer within `timeout` in all. AsyncHTTPClient's own deadline ends once
    /// the head has arrived, so a body that stalls would otherwise hang the caller for ever; here the exchange
    /// races a timer and is cancelled when the timer wins.
    private static func exchange(
        _ request: HTTPClientRequest, on client: HTTPClient, timeout: Duration, maximumBodySize: Int
    ) async throws -> Answer {
        try await withThrowingTaskGroup(of: Answer.self) { group in
            group.addTask {
                let response = try await client.execute(request, timeout: .nanoseconds(timeout.clampedNanoseconds))
                let buffer = try await response.body.collect(upTo: maximumBodySize)
                return Answer(
                    status: Int(response.status.code),
                    headers: response.headers.map { (name: $0.name, value: $0.value) },
                    body: Data(buffer.readableBytesView)
                )
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw BodyDeadlineExceeded()
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw BodyDeadlineExceeded() }
            return first
        }
    }

    /// Why a handshake failed, in words without certificate contents: BoringSSL's reason for a refused certificate
    /// ("CERTIFICATE_VERIFY_FAILED"), else the error's case.
    private static func tlsReason(_ error: NIOSSLError) -> String {
        guard case .handshakeFailed(let inner) = error else { return "NIOSSLError.\(error)" }
        let text = Array(String(describing: inner).utf8)
        let mark = Array("CERTIFICATE_VERIFY_FAILED".utf8)
        // Searched as bytes: `String.contains` would be Foundation's here, which sessionctl does not link.
        let refused =
            text.count >= mark.count
            && (0...(text.count - mark.count)).contains {
                text[$0..<$0 + mark.count].elementsEqual(mark)
            }
        return refused ? "certificate verify failed" : "handshake failed"
    }
}
