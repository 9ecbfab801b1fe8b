import Foundation
package import SessionKit

/// The real transport, with the JSON object answers of one endpoint changed on their way back: for a
/// provider's behaviour that no real part here shows (another `sub` in userinfo, an `mfa_token`, an
/// interval of 1e300). Every test that uses it says so; everything else in it is real HTTP.
///
/// ```swift
/// let transport = RewritingTransport(answersTo: "/userinfo") { $0["sub"] = .string("someone-else") }
/// ```
package struct RewritingTransport: HTTPTransport {
    private let inner = ProviderClient.defaultTransport
    private let pathSuffix: String
    private let rewrite: @Sendable (inout [String: JSONValue]) -> Void

    /// Rewrites, with `rewrite`, the answers to requests whose path ends with `pathSuffix`.
    package init(answersTo pathSuffix: String, _ rewrite: @escaping @Sendable (inout [String: JSONValue]) -> Void) {
        self.pathSuffix = pathSuffix
        self.rewrite = rewrite
    }

    /// Sends `request` for real and rewrites the answer when it is one to change.
    package func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        var response = try await inner.send(request, timeout: timeout)
        guard request.url.path.hasSuffix(pathSuffix), case .object(var object)? = try? JSONValue(parsing: response.body)
        else { return response }
        rewrite(&object)
        response.body = (try? JSONValue.object(object).jsonData()) ?? response.body
        return response
    }
}
