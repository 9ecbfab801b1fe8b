public import Foundation
import SessionKit

extension BackendForFrontend {
    /// Where the back end is seen by browsers, where its routes are, and where the API calls go.
    ///
    /// ```swift
    /// let configuration = try BackendForFrontend.Configuration(
    ///     publicURL: URL(string: "https://app.example.com")!,
    ///     upstream: URL(string: "https://api.example.com/")!
    /// )
    /// ```
    public struct Configuration: Sendable {
        /// The origin browsers load the app from, such as `https://app.example.com`: the callback URL is built on
        /// it, state-changing requests must come from it, and the cookie gets `Secure` and the `__Host-` prefix
        /// when it is `https`.
        public var publicURL: URL
        /// Where the routes are mounted, such as `""` (the default: `/auth/login`, `/api/...`) or `/bff`.
        public var prefix: String
        /// The API the forwarding route `<prefix>/api/...` calls: `/api/orders?x=1` goes to
        /// `<upstream>orders?x=1`, with the user's access token. `nil`: no forwarding route.
        public var upstream: URL?
        /// The least number of seconds an access token must still be valid for when it is forwarded; a token
        /// closer to its expiry is renewed first (once across instances).
        public var minimumTokenLifetime: TimeInterval
        /// The scope to ask for at sign-in; `nil`: the provider configuration's.
        public var scope: String?
        /// The API audience to ask for at sign-in; `nil`: the provider configuration's.
        public var audience: String?
        /// The session cookie's name, before the `__Host-` prefix that `https` adds.
        public var cookieName: String
        /// How long a started sign-in may take, from `/auth/login` to the callback.
        public var signInTimeout: TimeInterval
        /// How long the upstream may take to answer, body included: no answer head within it is a 504, and a
        /// body still arriving at it is cut off (the browser sees the response end early).
        public var upstreamTimeout: Duration
        /// The longest the upstream may go without sending a byte, head or body; past it the exchange is ended
        /// as for ``upstreamTimeout``. A stalled upstream holds a connection no longer than this.
        public var upstreamReadTimeout: Duration
        /// The largest request body forwarded to the upstream, in bytes; a larger one is refused with 413.
        public var maxRequestBodySize: Int
        /// The largest upstream answer body passed to the browser, in bytes; a larger one is refused with 502
        /// (or, when its size was not announced, cut off where it passes the limit).
        public var maxResponseBodySize: Int
        /// How long a browser's connection may stay open with no request under way (a slow or abandoned client
        /// holds a connection no longer); used by ``BackendForFrontend/httpServer``.
        public var connectionIdleTimeout: Duration
        /// The longest a session may last from its sign-in, whatever its refresh token allows (default 7 days).
        public var sessionLifetime: TimeInterval
        /// How long a session may go unused before it ends (default 1 day).
        public var idleTimeout: TimeInterval
        /// Whether `POST /auth/logout` also ends the user's session at the provider (RP-initiated logout),
        /// when the provider has an end-session endpoint. Without it, "Sign in" right after "Sign out" signs
        /// the same user in again without asking: on a shared computer, the next person gets their account.
        public var providerLogout: Bool
        /// Where the provider sends the browser after its logout: a path on the public URL, registered at the
        /// provider as a post-logout redirect URI (`<origin><path>`).
        public var postLogoutRedirectPath: String
        /// The header a front end sends on state-changing calls when its requests carry no `Origin`
        /// (`X-CSRF: 1`). Browsers never let another site send a custom header without a CORS preflight,
        /// which this back end never grants.
        public var antiForgeryHeader: String
        /// Other APIs the front end calls through this back end, each at its own path with an access token for
        /// its own audience from the same sign-in; empty by default.
        public var remoteAPIs: [RemoteAPI] = []
        /// The profile routes (`GET /auth/profile`, `PATCH /auth/profile/metadata`), and which `user_metadata` keys
        /// they let a user change; `nil` (the default): no profile routes.
        public var profile: ProfileRoutes?
        /// The audience the provider's Security Event Tokens name for this back end (the `aud` of the Shared
        /// Signals stream that pushes to `POST /auth/ssf/events`); `nil` (the default): the client id.
        public var securityEventAudience: String?
        /// Whether the forwarded requests that need no waiting are answered from the browser's connection's event
        /// loop (on by default): a bodiless request with the anti-forgery header and a live session whose bearer
        /// token for the API is valid in memory, to a plain `http://` upstream, goes out on a pooled keep-alive
        /// connection on the same thread, without the router, Swift's tasks or AsyncHTTPClient, at about half the
        /// CPU per request (BENCHMARKS.md). Everything else (bodies, `HEAD`, renewals, DPoP, `https` upstreams,
        /// every refusal) takes the router's forwarding route. The router's middleware does not see the requests
        /// taken here; the back end counts and traces them as its route does. Needs ``BackendForFrontend/httpServer``
        /// and Hummingbird's default event loop group (`MultiThreadedEventLoopGroup.singleton`).
        public var forwardsOnEventLoop = true
        /// The most calls forwarded from one event loop to one upstream at once (64, as many connections as the
        /// router's AsyncHTTPClient keeps per host); past it, calls take the router's path, which queues them.
        var eventLoopExchangesPerUpstream = 64

        /// Creates a configuration.
        ///
        /// - Throws: ``BackendForFrontendError`` (``BackendForFrontendError/Code/invalidConfiguration``) when the
        ///   public URL is not an absolute `http` or `https` origin, plain `http` names a host other than a
        ///   loopback address (`localhost`, `::1`, `127.x.y.z`), the prefix does not start with `/`, the post-logout
        ///   path is not a path on this site, or a timeout, size or lifetime is out of range.
        public init(
            publicURL: URL,
            prefix: String = "",
            upstream: URL? = nil,
            minimumTokenLifetime: TimeInterval = 30,
            scope: String? = nil,
            audience: String? = nil,
            cookieName: String = "sessionkit",
            signInTimeout: TimeInterval = 600,
            upstreamTimeout: Duration = .seconds(60),
            upstreamReadTimeout: Duration = .seconds(30),
            maxRequestBodySize: Int = 10 << 20,
            maxResponseBodySize: Int = 100 << 20,
            connectionIdleTimeout: Duration = .seconds(30),
            sessionLifetime: TimeInterval = 7 * 86_400,
            idleTimeout: TimeInterval = 86_400,
            providerLogout: Bool = true,
            postLogoutRedirectPath: String = "/",
            antiForgeryHeader: String = "X-CSRF"
        ) throws(BackendForFrontendError) {
            guard let scheme = publicURL.scheme?.lowercased(), ["http", "https"].contains(scheme),
                let host = publicURL.host, !host.isEmpty
            else {
                throw BackendForFrontendError(
                    code: .invalidConfiguration,
                    message:
                        "the public URL '\(publicURL.absoluteString)' is not an absolute http(s) URL; "
                        + "give the origin browsers use, such as https://app.example.com")
            }
            if scheme == "http" && !LoopbackHost.contains(host) {
                throw BackendForFrontendError(
                    code: .invalidConfiguration,
                    message:
                        "the public URL '\(publicURL.absoluteString)' is plain http on a host that is not loopback: "
                        + "the session cookie would travel in clear; serve the app over https")
            }
            guard prefix.isEmpty || (prefix.hasPrefix("/") && !prefix.hasSuffix("/")) else {
                throw BackendForFrontendError(
                    code: .invalidConfiguration,
                    message:
                        "the prefix '\(prefix)' must be empty or start with '/' and not end with one, such as /bff")
            }
            guard ReturnPath.validated(postLogoutRedirectPath) != nil else {
                throw BackendForFrontendError(
                    code: .invalidConfiguration,
                    message:
                        "the post-logout redirect path '\(postLogoutRedirectPath)' must be a path on this site, such as /"
                )
            }
            let limits: [(String, Bool)] = [
                ("upstreamTimeout", upstreamTimeout > .zero), ("upstreamReadTimeout", upstreamReadTimeout > .zero),
                ("maxRequestBodySize", maxRequestBodySize >= 0), ("maxResponseBodySize", maxResponseBodySize >= 0),
                ("connectionIdleTimeout", connectionIdleTimeout > .zero),
                ("sessionLifetime", sessionLifetime.isFinite && sessionLifetime >= 60),
                ("idleTimeout", idleTimeout.isFinite && idleTimeout >= 60), ("signInTimeout", signInTimeout >= 10),
            ]
            if let (name, _) = limits.first(where: { !$0.1 }) {
                throw BackendForFrontendError(
                    code: .invalidConfiguration,
                    message:
                        "\(name) is out of range: timeouts must be positive, sizes not negative, the session lifetime "
                        + "and idle timeout at least 60 seconds and the sign-in timeout at least 10")
            }
            self.publicURL = publicURL
            self.prefix = prefix
            self.upstream = upstream
            self.minimumTokenLifetime = minimumTokenLifetime
            self.scope = scope
            self.audience = audience
            self.cookieName = cookieName
            self.signInTimeout = signInTimeout
            self.upstreamTimeout = upstreamTimeout
            self.upstreamReadTimeout = upstreamReadTimeout
            self.maxRequestBodySize = maxRequestBodySize
            self.maxResponseBodySize = maxResponseBodySize
            self.connectionIdleTimeout = connectionIdleTimeout
            self.sessionLifetime = sessionLifetime
            self.idleTimeout = idleTimeout
            self.providerLogout = providerLogout
            self.postLogoutRedirectPath = postLogoutRedirectPath
            self.antiForgeryHeader = antiForgeryHeader
        }

        /// Whether the public URL is `https`: the cookies then get `Secure` and the `__Host-` prefix.
        public var isSecure: Bool { publicURL.scheme?.lowercased() == "https" }

        /// The public URL's origin, as browsers send it in `Origin`: `scheme://host[:port]`.
        public var origin: String {
            let scheme = publicURL.scheme?.lowercased() ?? "https"
            let host = (publicURL.host ?? "").lowercased()
            let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            let defaultPort = scheme == "https" ? 443 : 80
            guard let port = publicURL.port, port != defaultPort else { return "\(scheme)://\(shownHost)" }
            return "\(scheme)://\(shownHost):\(port)"
        }

        /// Where the provider sends the browser after its logout: `<origin><postLogoutRedirectPath>`.
        public var postLogoutRedirectURL: URL {
            // The origin and a validated path always make a URL.
            URL(string: origin + postLogoutRedirectPath)!
        }

        /// The callback URL registered at the provider: `<origin><prefix>/auth/callback`.
        public var callbackURL: URL {
            // The origin and a validated prefix always make a URL.
            URL(string: origin + prefix + "/auth/callback")!
        }
    }
}
