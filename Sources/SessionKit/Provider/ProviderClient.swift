public import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Talks to one OAuth 2.0 / OpenID Connect provider for one client: discovery, every grant SessionKit
/// supports, ID-token validation, revocation and userinfo.
///
/// Nothing it returns has been stored; the ``SessionManager`` stores what it returns. Every token
/// response and ID token is validated before it is returned, and every failure is a
/// ``SessionKitError`` that says whether trying again can help.
///
/// ```swift
/// let provider = ProviderClient(configuration: configuration)
/// let credentials = try await provider.signIn(username: "ada@example.com", password: Secret(password))
/// ```
public actor ProviderClient {
    /// The configuration this client was created with.
    public nonisolated let configuration: ProviderConfiguration
    let transport: any HTTPTransport
    let clock: SessionClock
    let logger: Logger?
    private var discovery: Task<ProviderMetadata, any Error>?
    private var jwksCache: JWKSCache?
    /// Seconds the provider's clock is ahead of ours, learned from `Date` headers (0 when within 2 s); in a
    /// `Mutex` so that ``providerNow`` needs no hop onto the actor.
    private let clockOffset = Mutex<TimeInterval>(0)
    /// ID tokens already verified, shared with the JWKS cache, which empties it when it reloads the keys.
    nonisolated let validatedIDTokens = IDTokenCache()
    /// The last `DPoP-Nonce` each server (by origin) sent.
    nonisolated let dpopNonces = Mutex<[String: String]>([:])

    /// Seconds the provider's clock is ahead of ours, learned from `Date` headers (0 when within 2 s).
    var serverClockOffset: TimeInterval { clockOffset.withLock { $0 } }

    /// Creates a client. Nothing is fetched until the first call that needs the provider.
    ///
    /// - Parameters:
    ///   - transport: How requests are sent: ``defaultTransport`` unless given.
    ///   - clock: The source of "now" for every expiry decision.
    ///   - logger: Where to log requests (at debug, with every secret redacted); silent when `nil`.
    public init(
        configuration: ProviderConfiguration,
        transport: any HTTPTransport = ProviderClient.defaultTransport,
        clock: SessionClock = .system,
        logger: Logger? = nil
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.logger = logger
    }

    /// The provider's endpoints: its discovery document, fetched once, with the configured overrides.
    ///
    /// A failed fetch is not cached, so the next call tries again.
    public func metadata() async throws(SessionKitError) -> ProviderMetadata {
        if let discovery {
            do { return try await discovery.value } catch { self.discovery = nil }
        }
        let task = Task { () async throws -> ProviderMetadata in try await self.fetchMetadata() }
        discovery = task
        do {
            return try await task.value
        } catch {
            discovery = nil
            throw Self.wrap(error)
        }
    }

    /// Fetches the discovery document now, past the cache, and checks it: for a readiness probe that reports
    /// whether the provider answers. Throws as ``metadata()`` does.
    public func checkReachable() async throws(SessionKitError) {
        _ = try await fetchMetadata()
    }

    /// The platform's client: ``URLSessionTransport`` on Apple platforms, where `URLSession` is the system's
    /// own HTTP stack, and `AsyncHTTPClientTransport` on Linux (the `AsyncHTTPClientOnLinux` trait, on by
    /// default). On Linux without that trait it is `URLSessionTransport` with the `URLSessionOnLinux` trait, and
    /// otherwise a transport that fails every request, saying to pass one.
    public static var defaultTransport: any HTTPTransport {
        #if canImport(Darwin)
            URLSessionTransport.shared
        #elseif os(Linux) && AsyncHTTPClientOnLinux
            AsyncHTTPClientTransport()
        #elseif URLSessionOnLinux
            URLSessionTransport.shared
        #else
            MissingTransport()
        #endif
    }

    /// "Now" as the provider sees it: our clock corrected by the offset its `Date` headers showed.
    nonisolated var providerNow: Date { clock.now().addingTimeInterval(clockOffset.withLock { $0 }) }

    private func fetchMetadata() async throws(SessionKitError) -> ProviderMetadata {
        var base = configuration.issuer.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + "/.well-known/openid-configuration") else {
            throw SessionKitError(code: .invalidConfiguration, message: "the issuer URL cannot be extended with a path")
        }
        let response = try await send(HTTPRequest(method: "GET", url: url), endpoint: "discovery endpoint")
        guard response.status == 200 else {
            throw providerFailure(response, endpoint: "discovery endpoint")
        }
        let document: ProviderMetadata
        do {
            document = try JSONDecoder().decode(ProviderMetadata.self, from: response.body)
        } catch {
            throw SessionKitError(
                code: .invalidResponse,
                message:
                    "the provider's discovery document at \(url.absoluteString) is not valid OpenID Connect metadata",
                underlyingError: error
            )
        }
        guard document.issuer == configuration.issuer.absoluteString else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the discovery document's issuer '\(document.issuer)' is not the configured issuer "
                    + "'\(configuration.issuer.absoluteString)'; configure the issuer exactly as the provider names it"
            )
        }
        return document.applying(configuration.endpoints)
    }

    /// The validator for ID tokens of this provider, with its JWKS cache created on first use.
    func idTokenValidator() async throws(SessionKitError) -> IDTokenValidator {
        if let jwksCache { return IDTokenValidator(keys: jwksCache, clientSecret: configuration.clientSecret) }
        let jwksURL = try await metadata().endpoint(.jwks)
        let cache = JWKSCache(refetchInterval: configuration.jwksRefetchInterval, validated: validatedIDTokens) {
            [weak self] () async throws(SessionKitError) -> Data in
            guard let self else { throw SessionKitError(code: .cancelled, message: "the provider client was released") }
            let response = try await self.send(HTTPRequest(method: "GET", url: jwksURL), endpoint: "JWKS endpoint")
            guard response.status == 200 else { throw await self.providerFailure(response, endpoint: "JWKS endpoint") }
            return response.body
        }
        jwksCache = cache
        return IDTokenValidator(keys: cache, clientSecret: configuration.clientSecret)
    }

    /// Sends `request` and logs it redacted.
    func send(_ request: HTTPRequest, endpoint: String, loggedBody: String? = nil) async throws(SessionKitError)
        -> HTTPResponse
    {
        logger?.debug(
            "request",
            metadata: [
                "endpoint": "\(endpoint)", "method": "\(request.method)", "url": "\(request.url.absoluteString)",
                "headers": "\(Redaction.headers(request.headers))", "body": "\(loggedBody ?? "")",
            ]
        )
        let response = try await transport.send(request, timeout: configuration.effectiveRequestTimeout)
        logger?.debug(
            "response",
            metadata: [
                "endpoint": "\(endpoint)", "status": "\(response.status)",
                "body": "\(Redaction.json(response.body))",
            ]
        )
        return response
    }

    /// Learns how far the provider's clock is ahead of ours from a response's `Date` header.
    ///
    /// Only answers made for this request count (token and userinfo): a discovery document or key set may
    /// come from a cache whose `Date` is old, and would make valid tokens look expired.
    ///
    /// The provider wrote its `Date` (whole seconds) at some moment between `sentAt` and `receivedAt` on our clock,
    /// so its clock is ahead of ours by at least `Date - receivedAt` and at most `Date + 1 - sentAt`. Only what
    /// that range proves is taken: the bound nearest zero, and nothing when it holds zero or stays within 2 s. A
    /// slow answer is not a fast clock: taken for one, it would date DPoP proofs in the provider's future, which it
    /// refuses as "not yet valid".
    nonisolated func learnClockOffset(from response: HTTPResponse, sentAt: Date, receivedAt: Date) {
        guard let date = response.header("Date").flatMap(HTTPDate.parse) else { return }
        let lowest = date.timeIntervalSince(receivedAt)
        let highest = date.timeIntervalSince(sentAt) + 1
        let proven = lowest > 0 ? lowest : highest < 0 ? highest : 0
        clockOffset.withLock { $0 = abs(proven) > 2 ? proven : 0 }
    }

    package static func wrap(_ error: any Error) -> SessionKitError {
        if let error = error as? SessionKitError { return error }
        if error is CancellationError {
            return SessionKitError(code: .cancelled, message: "the operation was cancelled")
        }
        return SessionKitError(code: .networkFailure, message: "the request failed; try again", underlyingError: error)
    }
}
