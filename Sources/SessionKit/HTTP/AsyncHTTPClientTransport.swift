import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The default ``HTTPTransport``, on AsyncHTTPClient, with redirects disabled.
///
/// One client serves the whole process and is created on first use, so code that never goes to the
/// network (reading valid credentials) starts no event loop.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The largest response body accepted: ``HTTPLimits/maximumBodySize``.
    public static let maximumBodySize = HTTPLimits.maximumBodySize

    /// A transport over the process-wide client.
    public init() {}

    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout.connect = .seconds(10)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Sends `request` and collects the response body, up to ``maximumBodySize``.
    public func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers {
            outgoing.headers.add(name: name, value: value)
        }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let host = request.url.host ?? "the provider"
        do {
            return try await Self.exchange(outgoing, timeout: timeout)
        } catch is BodyDeadlineExceeded {
            throw SessionKitError(
                code: .timeout,
                message: "\(host) did not finish its answer within \(timeout); the session is kept, try again later"
            )
        } catch let error as HTTPClientError
            where [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error)
        {
            throw SessionKitError(
                code: .timeout,
                message: "\(host) did not answer within \(timeout); the session is kept, try again later",
                underlyingError: error
            )
        } catch is CancellationError {
            throw SessionKitError(code: .cancelled, message: "the request to \(host) was cancelled")
        } catch let error as NIOTooManyBytesError {
            throw SessionKitError(
                code: .invalidResponse,
                message: "\(host) sent a response larger than \(Self.maximumBodySize) bytes",
                underlyingError: error
            )
        } catch {
            throw SessionKitError(
                code: .networkFailure,
                message: "could not reach \(host) (\(String(describing: type(of: error)))); "
                    + "check the network, the session is kept",
                underlyingError: error
            )
        }
    }
}

extension AsyncHTTPClientTransport {
    /// Thrown when the whole exchange, answer body included, outlasts its timeout.
    private struct BodyDeadlineExceeded: Error {}

    /// Sends `request` and collects the answer within `timeout` in all. AsyncHTTPClient's own deadline
    /// ends once the head has arrived, so a body that stalls would otherwise hang the caller for ever; here
    /// the exchange races a timer and is cancelled when the timer wins.
    private static func exchange(_ request: HTTPClientRequest, timeout: Duration) async throws -> HTTPResponse {
        try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            group.addTask {
                let response = try await client.execute(request, timeout: .clamped(timeout))
                let buffer = try await response.body.collect(upTo: maximumBodySize)
                return HTTPResponse(
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
}
