import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Posts logout tokens (OIDC Back-Channel Logout 1.0 §2.5): `POST`, `application/x-www-form-urlencoded`, the body
/// `logout_token=<JWT>`, within a deadline. Redirects are not followed: a receiver answers 200 (or 204), and
/// anything else is its answer. One attempt per token, no retry.
enum BackchannelTransport {
    /// What came back: a status, or why none did.
    struct Outcome: Sendable, Equatable {
        var status: Int?
        var failure: AuthEmulator.BackchannelDelivery.TransportFailure?
    }

    /// Runs `body` with an HTTP client made for one batch of deliveries and shut down after it, so no client
    /// outlives its deliveries (an emulator that is never stopped leaks nothing).
    static func withClient<Result: Sendable>(timeout: Double, _ body: (HTTPClient) async -> Result) async -> Result {
        let amount = TimeAmount.milliseconds(Int64(timeout * 1000))
        var pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(1))
        // A refused connection fails the delivery at once instead of being retried until the deadline.
        pool.retryConnectionEstablishment = false
        let configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: amount, read: amount),
            connectionPool: pool,
            decompression: .disabled
        )
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let result = await body(http)
        try? await http.shutdown()
        return result
    }

    /// Posts `token` to `uri` and waits at most `timeout` seconds for the answer's head; the body is not read.
    static func post(_ token: String, to uri: URL, using http: HTTPClient, timeout: Double) async -> Outcome {
        await post(
            RequestParameters.encode([("logout_token", token)]), type: "application/x-www-form-urlencoded", to: uri,
            using: http, timeout: timeout)
    }

    /// Posts the same request `attempts` times (more than once for a fault's duplicate delivery) on a client made for
    /// them, one after the other; returns each outcome with the time `now` gave when it was sent.
    static func post(
        _ body: String, type: String, to uri: URL, headers: [(String, String)] = [], attempts: Int, timeout: Double,
        now: () -> Date
    ) async -> [(outcome: Outcome, sentAt: Date)] {
        await withClient(timeout: timeout) { http in
            var made: [(outcome: Outcome, sentAt: Date)] = []
            for _ in 0..<attempts {
                let sentAt = now()
                let outcome = await post(body, type: type, to: uri, using: http, timeout: timeout, headers: headers)
                made.append((outcome, sentAt))
            }
            return made
        }
    }

    /// Posts `body` of the content type `type` (and the other `headers`, such as a ping's bearer token) to `uri` and
    /// waits at most `timeout` seconds for the answer's head.
    static func post(
        _ body: String, type: String, to uri: URL, using http: HTTPClient, timeout: Double,
        headers: [(String, String)] = []
    ) async -> Outcome {
        var request = HTTPClientRequest(url: uri.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: type)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        do {
            let deadline = NIODeadline.now() + .milliseconds(Int64(timeout * 1000))
            let response = try await http.execute(request, deadline: deadline)
            return Outcome(status: Int(response.status.code), failure: nil)
        } catch {
            return Outcome(status: nil, failure: classify(error))
        }
    }

    /// The kind of a transport error, without its message (which may repeat the URL or the request).
    static func classify(_ error: any Error) -> AuthEmulator.BackchannelDelivery.TransportFailure {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout, .getConnectionFromPoolTimeout:
                return .timedOut
            case .remoteConnectionClosed:
                return .connectionClosed
            default:
                return .other
            }
        }
        if error is CancellationError { return .timedOut }
        let name = String(describing: type(of: error))
        if error is IOError || name.contains("NIOConnectionError") || name.contains("ConnectionError") {
            return .connectionFailed
        }
        return .other
    }
}
