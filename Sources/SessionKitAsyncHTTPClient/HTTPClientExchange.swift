import AsyncHTTPClient
package import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SecureStore

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
/// (reading valid credentials) starts no event loop.
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
                error.connectionErrors.first.map { reason($0.error) } ?? "NIOConnectionError"
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

    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout.connect = .seconds(10)
        // Idle connections close before the servers' own keep-alive ends (5 s in uvicorn and Node.js): a request
        // sent on a connection the server is closing at that moment fails without reaching it.
        configuration.connectionPool = .init(idleTimeout: .seconds(4))
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Sends a request and collects the whole answer, body included, within `timeout`, refusing bodies larger
    /// than `maximumBodySize`.
    package static func send(
        method: String, url: URL, headers: [(name: String, value: String)], body: Data?, timeout: Duration,
        maximumBodySize: Int
    ) async throws(Failure) -> Answer {
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: method)
        for (name, value) in headers {
            outgoing.headers.add(name: name, value: value)
        }
        if let body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            return try await exchange(outgoing, timeout: timeout, maximumBodySize: maximumBodySize)
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
        } catch {
            throw .unreachable(underlying: error)
        }
    }

    /// Thrown when the whole exchange, answer body included, outlasts its timeout.
    private struct BodyDeadlineExceeded: Error {}

    /// Sends `request` and collects the answer within `timeout` in all. AsyncHTTPClient's own deadline ends once
    /// the head has arrived, so a body that stalls would otherwise hang the caller for ever; here the exchange
    /// races a timer and is cancelled when the timer wins.
    private static func exchange(_ request: HTTPClientRequest, timeout: Duration, maximumBodySize: Int)
        async throws -> Answer
    {
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
}
