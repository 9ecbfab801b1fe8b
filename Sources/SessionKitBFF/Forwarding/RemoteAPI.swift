public import Foundation

extension BackendForFrontend {
    /// Another API the front end calls through this back end, with an access token for that API's audience from
    /// the user's one sign-in (Auth0's Multi-Resource Refresh Token; Duende BFF's per-`resource` user tokens).
    ///
    /// Requests to `<prefix><path>/...` go to `<upstream>...` with `Authorization: Bearer <token for audience>`,
    /// under the same rules as `<prefix>/api/...` (anti-forgery header, path allow-list, size and time limits).
    ///
    /// ```swift
    /// configuration.remoteAPIs = [
    ///     try .init(path: "/payments", upstream: URL(string: "https://payments.example.com/")!,
    ///               audience: "https://payments.example.com/", scope: "read:payments pay")
    /// ]
    /// ```
    public struct RemoteAPI: Sendable, Equatable {
        /// The path under the prefix that forwards to this API: `/` and one segment, such as `/payments`.
        public let path: String
        /// Where requests go; the part of the path after ``path`` is appended.
        public let upstream: URL
        /// The audience of the access tokens sent there.
        public let audience: String
        /// The scopes asked for that audience; `nil` for the provider's default.
        public let scope: String?

        /// Creates a remote API.
        ///
        /// - Throws: ``BackendForFrontendError/Code/invalidConfiguration`` when the path is not `/` and one
        ///   segment of lower-case letters, digits, `-` or `_` (or is `/api` or `/auth`, which the back end
        ///   uses), the upstream is not an absolute `http(s)` URL, or the audience is empty.
        public init(path: String, upstream: URL, audience: String, scope: String? = nil)
            throws(BackendForFrontendError)
        {
            let segment = path.dropFirst()
            let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_")
            guard path.hasPrefix("/"), !segment.isEmpty, segment.allSatisfy(allowed.contains),
                segment != "api", segment != "auth"
            else {
                throw BackendForFrontendError(
                    code: .invalidConfiguration,
                    message:
                        "the remote API path '\(path)' must be '/' and one segment of a-z, 0-9, '-' or '_', other than "
                        + "/api and /auth, such as /payments")
            }
            try Self.checkUpstream(upstream, of: path, example: "https://payments.example.com/")
            guard !audience.isEmpty else {
                throw BackendForFrontendError(
                    code: .invalidConfiguration, message: "the audience of \(path) is empty; name the API's identifier")
            }
            self.path = path
            self.upstream = upstream
            self.audience = audience
            self.scope = scope
        }

        /// Refuses an upstream that is not an absolute `http(s)` URL, naming the route it is for and an example.
        static func checkUpstream(_ upstream: URL, of route: String? = nil, example: String)
            throws(BackendForFrontendError)
        {
            guard let scheme = upstream.scheme?.lowercased(), ["http", "https"].contains(scheme), upstream.host != nil
            else {
                throw BackendForFrontendError(
                    code: .invalidConfiguration,
                    message:
                        "the upstream '\(upstream.absoluteString)'\(route.map { " of \($0)" } ?? "") is not an absolute "
                        + "http(s) URL, such as \(example)")
            }
        }
    }
}
