import AsyncHTTPClient
public import CoreMetrics
public import Crypto
import Foundation
public import HummingbirdCore
public import Logging
import NIOCore
import SecureStore
public import ServiceLifecycle
public import SessionKit
public import SessionKitServer
import Tracing

/// A back end for front ends: the server signs the user in, keeps the tokens in the shared session store, gives
/// the browser only a session cookie, and attaches a fresh access token to the API calls it forwards.
///
/// Its routes (``addRoutes(to:)``), under ``Configuration/prefix``:
/// - `GET /auth/login[?return_to=/path]`: starts the authorization-code flow with PKCE; `state`, `nonce` and the
///   verifier travel sealed in a sign-in cookie of this tab's own, so starting a sign-in writes nothing here and
///   the callback may land on any instance.
/// - `GET /auth/callback`: exchanges the code (as a confidential client), validates the ID token, creates a
///   session under a new random id, sets the sealed session cookie and redirects to `return_to` or `/`.
/// - `GET /auth/me`: `{"signed_in", "sub", "name", "email", "expires_at", "session_expires_at"}`, or 401.
/// - `GET /auth/profile`, with ``Configuration/profile``: the signed-in user's profile and `user_metadata`, read
///   through Auth0's Management API with the back end's own client-credentials token; or 401.
/// - `PATCH /auth/profile/metadata`, with ``Configuration/profile``: merges a JSON object of the allowed keys
///   (``ProfileRoutes/editableMetadataKeys``) into the user's `user_metadata`; checked for forgery as logout is.
/// - `POST /auth/logout`: revokes at the provider, deletes the session on every instance, clears the cookie, and
///   sends the browser to the provider's end-session endpoint (`logout_url` in the JSON answer, or a redirect
///   for a form post).
/// - `POST /auth/backchannel-logout`: the provider's back-channel logout (OpenID Connect Back-Channel Logout
///   1.0): ends the sessions of the logout token's `sid`, or every session of its `sub` when it names no `sid`,
///   on every instance.
/// - `POST /auth/ssf/events`: the provider's Security Event Tokens (OpenID Shared Signals 1.0, push delivery RFC
///   8935): a revoked session, a changed credential or a disabled account ends every session of the user on every
///   instance and revokes their refresh tokens.
/// - `/api/...`: forwarded to ``Configuration/upstream`` with `Authorization: Bearer <fresh token>`; every
///   request must carry the anti-forgery header (`X-CSRF: 1`), whatever its method.
///
/// ```swift
/// let sessions = SessionDirectory(provider: provider, store: store)
/// let bff = try BackendForFrontend(configuration: configuration, sessions: sessions, cookieSecret: secret)
/// let router = Router(context: BasicBFFRequestContext.self)
/// router.add(middleware: bff.sessionMiddleware())
/// bff.addRoutes(to: router)
/// let app = Application(router: router, server: bff.httpServer)
/// ```
public final class BackendForFrontend: Sendable {
    /// What the back end was configured with.
    public let configuration: Configuration
    /// Every user's session, shared with the other instances through its store.
    public let sessions: SessionDirectory
    let cookies: SessionCookies
    let forgeryCheck: RequestForgeryCheck
    let index: SessionIndex
    let httpClient: HTTPClient
    let logger: Logger?
    let metrics: ForwardingMetrics
    /// Where `<prefix>/api/...` goes; `nil` without an upstream.
    let sessionAPI: ForwardTarget?
    /// Where each remote API's path goes.
    let remoteAPIs: [ForwardTarget]
    /// The request headers never forwarded: hop-by-hop, withheld, and the anti-forgery header.
    let headersNotForwarded: Set<String>
    /// `<prefix>/auth/`, where the sign-in and session routes are.
    let authRoutes: String
    /// Where the forwarding routes are mounted.
    let forwardingMounts: [String]
    /// The Management API client of the profile routes, with the back end's own token; `nil` without them.
    let management: UserManagementClient?
    /// The forwarding path on the event loop (``Configuration/forwardsOnEventLoop``); `nil` when it is off or no
    /// upstream is plain HTTP.
    let eventLoopForwarding: EventLoopForwarding?

    /// Creates a back end for front ends over `sessions`, whose provider must be configured as a confidential
    /// client (a client secret) with the callback URL ``Configuration/callbackURL`` registered (and
    /// ``Configuration/postLogoutRedirectURL`` as a post-logout redirect URI, and `<origin><prefix>/auth/
    /// backchannel-logout` as its back-channel logout URI, for the provider's logout to reach it).
    ///
    /// - Parameters:
    ///   - cookieSecret: At least 256 random bits that seal the cookies; every instance of the app needs the same
    ///     one, and changing it signs everyone out. Keep it as secret as the client secret.
    ///   - logger: Where to log; nothing is logged without one, and never a token, code or cookie.
    ///   - metrics: Where the forwarding counters go (requests by status, time to the upstream's answer);
    ///     swift-metrics' bootstrapped factory by default.
    /// - Throws: ``BackendForFrontendError/Code/invalidConfiguration`` when the upstream is not an absolute
    ///   `http(s)` URL, or the anti-forgery header is not a valid field name.
    public init(
        configuration: Configuration, sessions: SessionDirectory, cookieSecret: SymmetricKey, logger: Logger? = nil,
        metrics: (any MetricsFactory)? = nil
    ) throws(BackendForFrontendError) {
        guard cookieSecret.bitCount >= 256 else {
            throw BackendForFrontendError(
                code: .invalidConfiguration,
                message:
                    "the cookie secret has \(cookieSecret.bitCount) bits; give at least 256 random bits, such as "
                    + "SymmetricKey(size: .bits256) kept where every instance reads it")
        }
        if let upstream = configuration.upstream {
            try RemoteAPI.checkUpstream(upstream, example: "https://api.example.com/")
        }
        let paths = configuration.remoteAPIs.map(\.path)
        if let repeated = paths.first(where: { path in paths.filter { $0 == path }.count > 1 }) {
            throw BackendForFrontendError(
                code: .invalidConfiguration, message: "two remote APIs share the path \(repeated); give each its own")
        }
        guard let forgeryCheck = RequestForgeryCheck(configuration: configuration) else {
            throw BackendForFrontendError(
                code: .invalidConfiguration,
                message:
                    "the anti-forgery header '\(configuration.antiForgeryHeader)' is not a valid HTTP field name; use "
                    + "letters, digits and '-', such as X-CSRF")
        }
        self.configuration = configuration
        self.sessions = sessions
        self.cookies = SessionCookies(configuration: configuration, secret: cookieSecret)
        self.forgeryCheck = forgeryCheck
        self.index = SessionIndex(store: sessions.store, lifetime: configuration.sessionLifetime)
        self.logger = logger
        self.metrics = ForwardingMetrics(factory: metrics ?? MetricsSystem.factory)
        self.sessionAPI = configuration.upstream.map {
            ForwardTarget(mount: configuration.prefix + "/api", upstream: $0.absoluteString)
        }
        self.remoteAPIs = configuration.remoteAPIs.map {
            ForwardTarget(mount: configuration.prefix + $0.path, upstream: $0.upstream.absoluteString, api: $0)
        }
        self.authRoutes = configuration.prefix + "/auth/"
        self.forwardingMounts = ([sessionAPI].compactMap { $0 } + remoteAPIs).map(\.mount)
        self.management = configuration.profile.map { profile in
            let provider = sessions.provider
            let tokens = ClientCredentialsTokenSource(
                provider: provider,
                audience: profile.managementAudience
                    ?? provider.configuration.issuer.appendingPathComponent("api/v2/").absoluteString,
                scope: profile.scope, store: sessions.store)
            return UserManagementClient(tokens: tokens, provider: provider, baseURL: profile.managementBaseURL)
        }
        self.headersNotForwarded = HopByHopHeaders.removedUpstream.union([configuration.antiForgeryHeader.lowercased()])
        self.eventLoopForwarding = EventLoopForwarding(
            configuration: configuration, cookies: cookies, forgeryCheck: forgeryCheck, sessions: sessions,
            metrics: self.metrics, headersNotForwarded: headersNotForwarded,
            targets: [sessionAPI].compactMap { $0 } + remoteAPIs)
        var client = HTTPClient.Configuration()
        client.redirectConfiguration = .disallow
        client.decompression = .disabled
        // AsyncHTTPClient keeps 8 connections per host by default; a proxy in front of one API needs more.
        client.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        // The read timeout ends an exchange whose upstream goes silent, head or body; the request's deadline
        // (upstreamTimeout) only covers the head, so forwarding also checks it as the body arrives.
        client.timeout = .init(connect: .seconds(10), read: .init(configuration.upstreamReadTimeout))
        // Without a tracer bootstrapped, AsyncHTTPClient would still fill in a no-op span's attributes for every
        // forwarded request (a fortieth of the back end's CPU): no tracer, no client spans.
        if InstrumentationSystem.tracer is NoOpTracer { client.tracing.tracer = nil }
        self.httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: client)
    }

    /// The provider every session belongs to.
    public var provider: ProviderClient { sessions.provider }

    /// The HTTP/1.1 server for Hummingbird's `Application(router:server:)`, with the idle timeout of
    /// ``Configuration/connectionIdleTimeout``: a client that opens connections and sends nothing, or trickles
    /// a request's head, holds them no longer than that. With ``Configuration/forwardsOnEventLoop``, each
    /// connection also forwards what it can from its event loop.
    public var httpServer: HTTPServerBuilder {
        let http1 = HTTP1Channel.Configuration(idleTimeout: .init(configuration.connectionIdleTimeout))
        guard let forwarding = eventLoopForwarding else { return .http1(configuration: http1) }
        return HTTPServerBuilder { responder in
            ForwardingHTTP1Channel(
                base: HTTP1Channel(responder: responder, configuration: http1), forwarding: forwarding)
        }
    }

    /// What this back end runs beside its HTTP server, as swift-service-lifecycle services for Hummingbird's
    /// `Application(router:server:configuration:services:logger:)`, which shuts them down after the server
    /// (in-flight requests finish first):
    ///
    /// - a ``SessionKitServer/ChangeFollower`` when the store announces changes (a logout on another instance
    ///   is then seen here within a second, not when the access token runs out);
    /// - an ``SessionKitServer/IdleSweep`` when the store can sweep, every `sweepInterval`, of what has not
    ///   been written for longer than a session may last (``Configuration/sessionLifetime``) plus a day: ended
    ///   sessions, replay records of logout tokens, stale index entries;
    /// - the upstream HTTP client, shut down last.
    ///
    /// Put the store itself first in the application's list when it is a service too (PostgreSQL's is).
    public func services(sweepInterval: Duration = .seconds(600)) -> [any Service] {
        var services: [any Service] = [UpstreamClientService(client: httpClient, pools: eventLoopForwarding?.pools)]
        if let feed = sessions.store as? any SecureStoreChangeFeed {
            services.append(ChangeFollower(directory: sessions, feed: feed))
        }
        if let sweeping = sessions.store as? any SecureStoreSweeping {
            let idle = Duration.seconds(Int64(configuration.sessionLifetime) + 86_400)
            services.append(
                IdleSweep(
                    store: sweeping, idleFor: idle, every: sweepInterval,
                    logger: logger ?? Logger(label: "sessionkit.bff", factory: { _ in SwiftLogNoOpLogHandler() })))
        }
        return services
    }

    /// Closes the upstream HTTP client's connections. Call it once the server has stopped, unless ``services(sweepInterval:)``
    /// ran: they close it themselves.
    public func shutdown() async throws(BackendForFrontendError) {
        await eventLoopForwarding?.pools.shutdown()
        do {
            try await httpClient.shutdown()
        } catch {
            throw BackendForFrontendError(
                code: .shutdownFailed, message: "the upstream HTTP client did not shut down cleanly",
                underlyingError: error)
        }
    }
}
