public import Foundation

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
        /// How long the upstream may take to answer, body included.
        public var upstreamTimeout: Duration
        /// The header a front end sends on state-changing calls when its requests carry no `Origin`
        /// (`X-CSRF: 1`). Browsers never let another site send a custom header without a CORS preflight,
        /// which this back end never grants.
        public var antiForgeryHeader: String

        /// Creates a configuration.
        ///
        /// - Throws: ``BackendForFrontendError`` (``BackendForFrontendError/Code/invalidConfiguration``) when the
        ///   public URL is not an absolute `http` or `https` origin, plain `http` names a host other than a
        ///   loopback address, or the prefix does not start with `/`.
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
            antiForgeryHeader: String = "X-CSRF"
        ) throws(BackendForFrontendError) {
            guard let scheme = publicURL.scheme?.lowercased(), ["http", "https"].contains(scheme),
                let host = publicURL.host, !host.isEmpty
            else {
                throw BackendForFrontendError(
                    .invalidConfiguration,
                    "the public URL '\(publicURL.absoluteString)' is not an absolute http(s) URL; "
                        + "give the origin browsers use, such as https://app.example.com")
            }
            if scheme == "http" && !Self.isLoopback(host) {
                throw BackendForFrontendError(
                    .invalidConfiguration,
                    "the public URL '\(publicURL.absoluteString)' is plain http on a host that is not loopback: "
                        + "the session cookie would travel in clear; serve the app over https")
            }
            guard prefix.isEmpty || (prefix.hasPrefix("/") && !prefix.hasSuffix("/")) else {
                throw BackendForFrontendError(
                    .invalidConfiguration,
                    "the prefix '\(prefix)' must be empty or start with '/' and not end with one, such as /bff")
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

        /// The callback URL registered at the provider: `<origin><prefix>/auth/callback`.
        public var callbackURL: URL {
            // The origin and a validated prefix always make a URL.
            URL(string: origin + prefix + "/auth/callback")!
        }

        static func isLoopback(_ host: String) -> Bool {
            let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
            return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
        }
    }
}
