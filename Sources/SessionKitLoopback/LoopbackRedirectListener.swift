import NIOCore
import NIOHTTP1
import NIOPosix
public import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Receives the authorization response of a browser sign-in on the loopback interface (RFC 8252 §7.3).
///
/// Only the real redirect counts: a callback whose `state` is missing or wrong (from another local program,
/// or a web page that sends requests to 127.0.0.1) is answered 400 and reported to
/// ``Configuration/onIgnoredRequest``, and the listener keeps waiting. The real redirect's page waits for
/// the outcome, so the browser and the application agree. The browser is opened with a short start link
/// (``startURL``) that redirects to the authorization URL once, so `state`, `nonce` and the PKCE challenge
/// never appear in a process's argument list.
///
/// ```swift
/// let listener = try await LoopbackRedirectListener.start()
/// let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI)
/// let start = try listener.startURL(for: request)
/// Task { if await !SystemBrowser.open(start) { print("Open \(start) in a browser to sign in") } }
/// let credentials = try await listener.signIn(request, with: provider, timeout: .seconds(300)) {
///     try await session.store($0)                      // before the page says "Signed in as …"
/// }
/// ```
public final class LoopbackRedirectListener: Sendable {
    /// The redirect URI to register and send: `http://127.0.0.1:<port><path>`, or exactly the one given to
    /// ``start(redirectURI:configuration:)``.
    public let redirectURI: URL
    /// The short link to open in the browser, `http://127.0.0.1:<port>/start/<random>`: once
    /// ``startURL(for:)`` has named the request, its first visit is answered 303 to the authorization URL,
    /// later ones 410.
    public let startURL: URL
    private let channels: [any Channel]
    private let state: LoopbackListenerState

    private init(redirectURI: URL, startURL: URL, channels: [any Channel], state: LoopbackListenerState) {
        self.redirectURI = redirectURI
        self.startURL = startURL
        self.channels = channels
        self.state = state
    }

    /// Starts listening on `127.0.0.1`, on a free port or a fixed one.
    ///
    /// - Parameters:
    ///   - port: A fixed port; `0` (the default) picks a free one.
    ///   - path: The callback path, starting with `/`.
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` when the port cannot be bound or the path is
    ///   not a URL path.
    public static func start(port: Int = 0, path: String = "/callback", configuration: Configuration = .init())
        async throws(SessionKitError) -> LoopbackRedirectListener
    {
        guard path.hasPrefix("/"), URL(string: "http://127.0.0.1\(path)") != nil, !path.contains("?") else {
            throw SessionKitError(
                code: .invalidConfiguration, message: "the callback path '\(path)' is not a URL path such as /callback")
        }
        guard (0...65_535).contains(port) else {
            throw SessionKitError(
                code: .invalidInput, message: "port \(port) is not a TCP port; give one from 0 (any free one) to 65535")
        }
        let state = LoopbackListenerState()
        let (channels, bound) = try await bind(
            addresses: ["127.0.0.1"], port: port, path: path, state: state, configuration: configuration)
        let uri = URL(string: "http://127.0.0.1:\(bound)\(path)")
        return try await make(redirectURI: uri, port: bound, channels: channels, state: state)
    }

    /// Starts listening for exactly `redirectURI` (for providers that match redirect URIs exactly): on the
    /// address it names, on `127.0.0.1` and `::1` (where available) for `localhost`, on its port (80 when it
    /// names none).
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` when the port cannot be bound.
    public static func start(redirectURI: LoopbackRedirectURI, configuration: Configuration = .init())
        async throws(SessionKitError) -> LoopbackRedirectListener
    {
        let state = LoopbackListenerState()
        let (channels, bound) = try await bind(
            addresses: redirectURI.addresses, port: redirectURI.port, path: redirectURI.path, state: state,
            configuration: configuration)
        return try await make(redirectURI: redirectURI.url, port: bound, channels: channels, state: state)
    }

    private static func make(redirectURI: URL?, port: Int, channels: [any Channel], state: LoopbackListenerState)
        async throws(SessionKitError) -> LoopbackRedirectListener
    {
        let host = channels.first?.localAddress?.protocol == .inet6 ? "[::1]" : "127.0.0.1"
        guard let redirectURI, let start = URL(string: "http://\(host):\(port)/start/\(state.startToken)") else {
            for channel in channels { try? await channel.close() }
            throw SessionKitError(code: .invalidConfiguration, message: "the redirect URI makes no valid URL")
        }
        return LoopbackRedirectListener(redirectURI: redirectURI, startURL: start, channels: channels, state: state)
    }

    /// Names the request this listener serves (its `state` is what callbacks must carry) and returns
    /// ``startURL``, the link to open in the browser.
    ///
    /// - Throws: ``SessionKitError/Code/invalidInput`` when the request was made for another redirect URI.
    public func startURL(for request: AuthorizationRequest) throws(SessionKitError) -> URL {
        try checkRedirect(of: request)
        state.expect(request)
        return startURL
    }

    /// Names the request this listener serves, to be pushed by `provider` when the browser follows
    /// ``startURL`` (RFC 9126), and returns that link: for a link the user may open minutes later, since a pushed
    /// request's `request_uri` lasts only a minute or so. Build the request with `deferringPush: true`; when no
    /// push is due the link leads to its URL as it is. A push that fails ends the wait
    /// (``waitForRedirect(timeout:)``) with its error, and the browser's page says that the sign-in failed.
    ///
    /// ```swift
    /// let request = try await provider.authorizationRequest(redirectURI: listener.redirectURI, deferringPush: true)
    /// print("Open \(try listener.startURL(for: request, pushingWith: provider)) to sign in")
    /// ```
    ///
    /// - Throws: ``SessionKitError/Code/invalidInput`` when the request was made for another redirect URI or was
    ///   pushed already.
    public func startURL(for request: AuthorizationRequest, pushingWith provider: ProviderClient)
        throws(SessionKitError) -> URL
    {
        try checkRedirect(of: request)
        guard request.requestURI == nil else {
            throw SessionKitError(
                code: .invalidInput,
                message: "the authorization request was pushed already; build it with `deferringPush: true` so that "
                    + "the push is made when the browser arrives")
        }
        state.expect(request) { () async throws(SessionKitError) -> URL in try await provider.pushed(request).url }
        return startURL
    }

    /// Makes ``startURL`` lead, once, to the URL that `destination` makes when the browser follows the link: for a
    /// URL that carries a single-use, short-lived credential (such as a session transfer token), made only when
    /// the browser has come, so that it is neither spent for nothing nor expired. No callback is expected. Watch
    /// ``hasStarted`` and ``startFailure`` for the outcome; stop the listener after either.
    public func startURL(leadingTo destination: @escaping @Sendable () async throws(SessionKitError) -> URL) -> URL {
        state.lead(to: destination)
        return startURL
    }

    private func checkRedirect(of request: AuthorizationRequest) throws(SessionKitError) {
        guard request.redirectURI.absoluteString == redirectURI.absoluteString else {
            throw SessionKitError(
                code: .invalidInput,
                message: "the authorization request was made for another redirect URI than this listener's; "
                    + "make it with `redirectURI: listener.redirectURI`")
        }
    }

    /// Whether a browser has followed ``startURL`` (it answers once) and been sent on: for a caller that hands the
    /// browser a URL carrying a single-use credential and only needs to know it was taken. For a destination made
    /// when the browser comes, once that redirect has been sent.
    public var hasStarted: Bool { state.startOutcome.answered }

    /// Why the destination of ``startURL(leadingTo:)`` (or the push of ``startURL(for:pushingWith:)``) could not be
    /// made when the browser came, if it could not; the browser was told that the sign-in failed.
    public var startFailure: SessionKitError? { state.startOutcome.failure }

    /// Waits for the redirect whose `state` matches the request named by ``startURL(for:)``. Other callbacks
    /// are answered 400 and ignored. Answer the returned redirect's browser with
    /// ``LoopbackRedirect/complete(signedInAs:)`` or ``LoopbackRedirect/complete(failure:)``.
    ///
    /// - Throws: ``SessionKitError/Code/timeout`` when no such redirect arrives in time, and
    ///   ``SessionKitError/Code/cancelled`` when the task is cancelled.
    public func waitForRedirect(timeout: Duration) async throws(SessionKitError) -> LoopbackRedirect {
        let state = self.state
        let eventLoop = channels[0].eventLoop
        let timer = eventLoop.scheduleTask(in: .nanoseconds(timeout.clampedNanoseconds)) {
            state.end(
                with: SessionKitError(
                    code: .timeout, message: "no browser sign-in arrived within \(timeout); try again"))
        }
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await state.next()
        } onCancel: {
            state.end(with: SessionKitError(code: .cancelled, message: "the browser sign-in was cancelled"))
        }
        return try result.get()
    }

    /// Stops accepting connections. A held page is still sent. Safe to call more than once.
    public func stop() async {
        for channel in channels { try? await channel.close() }
    }
}
