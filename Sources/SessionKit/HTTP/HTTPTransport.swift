#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Sends one HTTP request and returns the whole response: the seam between SessionKit and the network.
///
/// The default is ``AsyncHTTPClientTransport`` on Linux and ``URLSessionTransport`` on Apple platforms; an
/// app can supply its own (a proxy-aware client). A transport must not follow redirects, must end the whole
/// exchange (answer body included) within the timeout, must cap bodies at ``HTTPLimits/maximumBodySize``,
/// must throw ``SessionKitError`` with ``SessionKitError/Code/networkFailure`` or
/// ``SessionKitError/Code/timeout`` for transport failures, and must return any HTTP status, including
/// errors, as a response.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, or throws when no response arrived in `timeout`.
    func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse
}

/// An HTTP request as SessionKit sends it.
public struct HTTPRequest: Sendable {
    /// The method, such as `GET` or `POST`.
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Header fields in order; names are case-insensitive.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// An HTTP response with its whole body.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields in order; names are case-insensitive.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

/// Limits every transport keeps.
public enum HTTPLimits {
    /// The largest response body accepted; a provider's answers are a few kilobytes.
    public static let maximumBodySize = 1 << 20
}
