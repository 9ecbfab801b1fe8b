import AsyncHTTPClient
import Foundation
public import Logging
import NIOCore
public import SessionKit
public import SessionKitServer

/// A back end for front ends: the server signs the user in, keeps the tokens in the shared session store, gives
/// the browser only a session cookie, and attaches a fresh access token to the API calls it forwards.
///
/// Its routes (``addRoutes(to:)``), under ``Configuration/prefix``:
/// - `GET /auth/login[?return_to=/path]`: starts the authorization-code flow with PKCE; `state`, `nonce` and the
///   verifier are kept in the shared store, so the callback may land on any instance.
/// - `GET /auth/callback`: exchanges the code (as a confidential client), validates the ID token, creates a
///   session under a new random id, sets the cookie and redirects to `return_to` or `/`.
/// - `GET /auth/me`: `{"signed_in", "sub", "name", "email", "expires_at"}`, or 401.
/// - `POST /auth/logout`: revokes at the provider, deletes the session on every instance, clears the cookie.
/// - `/api/...`: forwarded to ``Configuration/upstream`` with `Authorization: Bearer <fresh token>`.
///
/// ```swift
/// let sessions = SessionDirectory(provider: provider, store: store)
/// let bff = try BackendForFrontend(configuration: configuration, sessions: sessions)
/// let router = Router(context: BasicBFFRequestContext.self)
/// router.add(middleware: bff.sessionMiddleware())
/// bff.addRoutes(to: router)
/// ```
public final class BackendForFrontend: Sendable {
    /// What the back end was configured with.
    public let configuration: Configuration
    /// Every user's session, shared with the other instances through its store.
    public let sessions: SessionDirectory
    let cookies: SessionCookies
    let forgeryCheck: RequestForgeryCheck
    let signIns: PendingSignIns
    let httpClient: HTTPClient
    let logger: Logger?
    /// The upstream URL without trailing slashes, which forwarded paths are appended to; `nil` without one.
    let upstreamBase: String?
    /// The request headers never forwarded: hop-by-hop, withheld, and the anti-forgery header.
    let headersNotForwarded: Set<String>

    /// Creates a back end for front ends over `sessions`, whose provider must be configured as a confidential
    /// client (a client secret) with the callback URL ``Configuration/callbackURL`` registered.
    ///
    /// - Parameter logger: Where to log; nothing is logged without one, and never a token, code or cookie.
    /// - Throws: ``BackendForFrontendError/Code/invalidConfiguration`` when the upstream is not an absolute
    ///   `http(s)` URL, or the anti-forgery header is not a valid field name.
    public init(configuration: Configuration, sessions: SessionDirectory, logger: Logger? = nil)
        throws(BackendForFrontendError)
    {
        if let upstream = configuration.upstream {
            guard let scheme = upstream.scheme?.lowercased(), ["http", "https"].contains(scheme), upstream.host != nil
            else {
                throw BackendForFrontendError(
                    .invalidConfiguration,
                    "the upstream '\(upstream.absoluteString)' is not an absolute http(s) URL, such as "
                        + "https://api.example.com/")
            }
        }
        guard let forgeryCheck = RequestForgeryCheck(configuration: configuration) else {
            throw BackendForFrontendError(
                .invalidConfiguration,
                "the anti-forgery header '\(configuration.antiForgeryHeader)' is not a valid HTTP field name; use "
                    + "letters, digits and '-', such as X-CSRF")
        }
        self.configuration = configuration
        self.sessions = sessions
        self.cookies = SessionCookies(configuration: configuration)
        self.forgeryCheck = forgeryCheck
        self.signIns = PendingSignIns(store: sessions.store, lifetime: configuration.signInTimeout)
        self.logger = logger
        var base = configuration.upstream?.absoluteString
        while base?.hasSuffix("/") == true { base?.removeLast() }
        self.upstreamBase = base
        self.headersNotForwarded = HopByHopHeaders.removedUpstream.union([configuration.antiForgeryHeader.lowercased()])
        var client = HTTPClient.Configuration()
        client.redirectConfiguration = .disallow
        client.decompression = .disabled
        // AsyncHTTPClient keeps 8 connections per host by default; a proxy in front of one API needs more.
        client.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        self.httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: client)
    }

    /// The provider every session belongs to.
    public var provider: ProviderClient { sessions.provider }

    /// Keeps this instance's memory in step with the others' changes (sign-outs, renewals) until the calling
    /// task is cancelled, when the store is PostgreSQL; returns at once for other stores. Run it beside the
    /// server: without it a logout on another instance is seen here only when the access token runs out.
    public func followChanges() async {
        guard let store = sessions.store as? PostgresSessionStore else { return }
        await sessions.follow(store)
    }

    /// Closes the upstream HTTP client's connections. Call it once the server has stopped.
    public func shutdown() async throws(BackendForFrontendError) {
        do {
            try await httpClient.shutdown()
        } catch {
            throw BackendForFrontendError(
                .shutdownFailed, "the upstream HTTP client did not shut down cleanly", underlyingError: error)
        }
    }
}
