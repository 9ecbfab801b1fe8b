public import SecureStore
public import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A back end's own access token for one API (the `client_credentials` grant), such as Auth0's Management API:
/// asked for once, used until it nears its expiry, and shared.
///
/// - In this process, concurrent callers share one request: the first starts it, the others wait for its answer.
/// - Across instances, through the store they share (``store``): the token is kept there, and the instance that
///   finds none takes a short lease on the item before it asks, so that a fleet meeting an expired token at once
///   sends one request; the others wait for the token the lease holder writes, or ask themselves once its lease
///   lapses (it failed or stopped).
/// - The token is kept in memory and, with a store, in the store, which seals its items at rest (SessionKitPostgres
///   does, with the sessions' key). It is never logged, and never in a description or an error.
///
/// ```swift
/// let tokens = ClientCredentialsTokenSource(
///     provider: provider, audience: "https://example.eu.auth0.com/api/v2/", scope: "read:users update:users",
///     store: directory.store)
/// let credentials = try await tokens.token()
/// ```
public actor ClientCredentialsTokenSource {
    /// What this source asks for, and where it shares the answer.
    let exchange: SharedClientToken
    /// The token last obtained, in memory.
    private var cached: Credentials?
    /// The request under way in this process, which every caller waits for.
    private var inFlight: Task<Credentials, any Error>?

    /// Creates a source of tokens for `audience`, asked of `provider` as its (confidential) client.
    ///
    /// - Parameters:
    ///   - scope: The scopes to ask for, space-separated; `nil`: every scope the client was granted.
    ///   - store: Where instances share the token; `nil`: this process only.
    ///   - minimumLifetime: A token closer than this to its expiry is replaced (default 60 seconds).
    ///   - leaseDuration: How long another instance waits for this one's request before it asks itself.
    ///   - clock: The source of "now" for expiry and leases.
    public init(
        provider: ProviderClient, audience: String, scope: String? = nil, store: (any AsyncSecureStore)? = nil,
        minimumLifetime: TimeInterval = 60, leaseDuration: Duration = .seconds(30), clock: SessionClock = .system
    ) {
        exchange = SharedClientToken(
            provider: provider, audience: audience, scope: scope, store: store, minimumLifetime: minimumLifetime,
            leaseDuration: leaseDuration.seconds, clock: clock)
    }

    /// The API the tokens are for.
    public nonisolated var audience: String { exchange.audience }

    /// A token valid for at least the minimum lifetime: from memory, from the store, or asked for now (once for
    /// every caller in this process, and once across the instances sharing the store).
    ///
    /// - Throws: ``SessionKit/SessionKitError`` as ``SessionKit/ProviderClient/clientCredentials(audience:scope:)``
    ///   does, or ``SessionKit/SessionKitError/Code/storeUnavailable`` when the shared store cannot be used.
    public func token() async throws(SessionKitError) -> Credentials {
        if let cached, exchange.isFresh(cached) { return cached }
        let task: Task<Credentials, any Error>
        if let inFlight {
            task = inFlight
        } else {
            task = Task { [exchange] in try await exchange.obtain() }
            inFlight = task
        }
        let result = await task.result
        if inFlight == task { inFlight = nil }
        switch result {
        case .success(let credentials):
            cached = credentials
            return credentials
        case .failure(let error as SessionKitError):
            throw error
        case .failure(let error):
            throw SessionKitError(
                code: .cancelled, message: "the client-credentials request was cancelled; try again",
                underlyingError: error)
        }
    }

    /// Forgets `credentials` when they are the token this source holds (an API refused them: revoked, or the
    /// client grant changed), here and in the store, so that the next ``token()`` asks for a new one.
    public func invalidate(_ credentials: Credentials) async {
        if cached?.accessToken == credentials.accessToken { cached = nil }
        await exchange.forget(credentials)
    }
}
