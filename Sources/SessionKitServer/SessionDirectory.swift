public import CoreMetrics
public import Foundation
public import Logging
public import SecureStore
public import SessionKit
import Synchronization
import Tracing

/// Many users' sessions in one server process: a ``SessionKit/SessionManager`` per active session, created
/// on first use and kept in a least-recently-used cache of bounded size.
///
/// Every instance of a service shares the store (an `AsyncSecureStore`, such as `SessionKitPostgres`'s), and each
/// session's renewal lease is written with the store's conditional writes (a `VersionedSecureStore`, through
/// ``VersionedStoreCoordinator``) or its atomic `update` (any other store), so a session is renewed once across all
/// instances whatever the number of callers. A valid access token is served from memory with no store call, so a
/// store that hangs stalls no session whose token is valid; ``follow(_:retryDelay:)`` (the ``ChangeFollower``
/// service) hears the store's change announcements, so that a logout on one instance ends the session on every
/// other and callers waiting for another instance's renewal get its result at once.
///
/// ```swift
/// let sessions = SessionDirectory(provider: provider, store: store)
/// let id = try await sessions.create(credentials)             // after the sign-in: set `id` as the cookie
/// let token = try await sessions.credentials(for: id, minTTL: 60).accessToken
/// ```
public final class SessionDirectory: Sendable {
    /// The provider every session belongs to.
    public let provider: ProviderClient
    /// The store every instance shares.
    public let store: any AsyncSecureStore
    /// The most sessions kept in memory; the least recently used are dropped beyond it.
    public let capacity: Int
    private let policy: RenewalPolicy
    private let clock: SessionClock
    private let logger: Logger?
    let cache: Mutex<LRU>
    /// What every manager's coordinator shares: whether ``follow(_:retryDelay:)`` receives the store's
    /// announcements now, how contended leases are, and the directory's counters.
    let fleet: DirectoryFleet
    /// The store as one that versions its items, when it is: its managers then write conditionally.
    private let versionedStore: (any VersionedSecureStore)?

    /// Creates a directory over a synchronous store (memory, an encrypted file): for tests and single-process
    /// servers. Nothing is read until a session is asked for.
    public convenience init(
        provider: ProviderClient, store: any SecureStore, capacity: Int = 10_000, policy: RenewalPolicy = .init(),
        clock: SessionClock = .system, logger: Logger? = nil, metrics: (any MetricsFactory)? = nil
    ) {
        self.init(
            provider: provider, store: SynchronousStoreAdapter(store), capacity: capacity, policy: policy,
            clock: clock, logger: logger, metrics: metrics)
    }

    /// Creates a directory. Nothing is read until a session is asked for.
    ///
    /// - Parameters:
    ///   - capacity: The most sessions kept in memory (at least 1). A dropped session is read from the store
    ///     again when it is next asked for.
    ///   - metrics: Where the directory's counters go (renewals, refresh failures, cache, sessions); swift-metrics'
    ///     bootstrapped factory by default.
    public init(
        provider: ProviderClient, store: any AsyncSecureStore, capacity: Int = 10_000, policy: RenewalPolicy = .init(),
        clock: SessionClock = .system, logger: Logger? = nil, metrics: (any MetricsFactory)? = nil
    ) {
        self.provider = provider
        self.store = store
        self.capacity = max(1, capacity)
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.cache = Mutex(LRU())
        self.fleet = DirectoryFleet(metrics: DirectoryMetrics(factory: metrics ?? MetricsSystem.factory))
        self.versionedStore = store as? any VersionedSecureStore
    }

    /// Stores newly signed-in credentials under a new random session id, and returns the id.
    ///
    /// A new id for every sign-in: a session id from before the sign-in is never reused (no session
    /// fixation).
    public func create(_ credentials: Credentials) async throws(SessionKitError) -> SessionID {
        let id = SessionID()
        try await manager(for: id).store(credentials)
        metrics.created.increment()
        return id
    }

    /// Credentials valid for at least `minTTL` seconds, renewed (once across instances) when needed.
    ///
    /// - Throws: ``SessionKit/SessionKitError/Code/signInRequired`` when there is no such session or it
    ///   ended; a retryable error, with the session kept, when the provider or the store failed for now.
    public func credentials(for id: SessionID, minTTL: TimeInterval = 0) async throws(SessionKitError) -> Credentials {
        try await withManager(for: id) { manager throws(SessionKitError) in
            // From memory: no span, no store call. Otherwise a store read, a wait or a renewal, in a span.
            if let valid = try manager.localCredentials(minTTL: minTTL) { return valid }
            return try await Self.slowPath { () async throws(SessionKitError) in
                try await manager.credentials(minTTL: minTTL)
            }
        }
    }

    /// An access token for another API from the session's one sign-in (``SessionManager/credentials(audience:scope:minTTL:)``),
    /// valid for at least `minTTL` seconds: from memory when it can, else renewed once across every instance.
    public func credentials(for id: SessionID, audience: String, scope: String? = nil, minTTL: TimeInterval = 0)
        async throws(SessionKitError) -> Credentials
    {
        try await withManager(for: id) { manager throws(SessionKitError) in
            if let valid = try manager.localCredentials(audience: audience, scope: scope, minTTL: minTTL) {
                return valid
            }
            return try await Self.slowPath { () async throws(SessionKitError) in
                try await manager.credentials(audience: audience, scope: scope, minTTL: minTTL)
            }
        }
    }

    /// The session's credentials when they are in memory and valid for at least `minTTL` seconds, else `nil`:
    /// never a store call, a wait or a renewal, so it may be called where nothing may suspend (a channel handler on
    /// an event loop). A `nil` says only that ``credentials(for:minTTL:)`` has work to do, not that the session ended.
    public func localCredentials(
        for id: SessionID, audience: String? = nil, scope: String? = nil, minTTL: TimeInterval = 0
    )
        -> Credentials?
    {
        guard let manager = cache.withLock({ $0.use(id) }) else { return nil }
        let valid: Credentials?
        if let audience {
            valid = try? manager.localCredentials(audience: audience, scope: scope, minTTL: minTTL)
        } else {
            valid = try? manager.localCredentials(minTTL: minTTL, scope: scope)
        }
        if valid != nil { metrics.cacheHits.increment() }
        return valid
    }

    /// Runs a call that reads the store, waits or renews (the slow path of `credentials`) in a span.
    private static func slowPath(_ body: () async throws(SessionKitError) -> Credentials)
        async throws(SessionKitError) -> Credentials
    {
        let span = startSpan("sessionkit.credentials.slow-path")
        defer { span.end() }
        do throws(SessionKitError) {
            return try await body()
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.attributes["sessionkit.error.code"] = "\(error.code)"
            throw error
        }
    }

    /// The session's credentials as stored, valid or not, without renewing; `nil` when there is no such session.
    /// Reads the store unless the session is in memory, and never takes a place in memory for an unknown id.
    public func storedCredentials(for id: SessionID) async throws(SessionKitError) -> Credentials? {
        let manager = cache.withLock { $0.use(id) } ?? makeManager(account: id.account)
        return try await manager.storedCredentials()
    }

    /// The session's user profile from the provider's userinfo endpoint (cached in the session).
    public func userInfo(for id: SessionID) async throws(SessionKitError) -> UserProfile {
        try await withManager(for: id) { manager throws(SessionKitError) in try await manager.userInfo() }
    }

    /// The profile the session keeps from its last ``userInfo(for:)``, without the network; `nil` when there is none
    /// (or no such session). Reads the store unless the session is in memory, and never takes a place in memory for
    /// an unknown id.
    public func cachedProfile(for id: SessionID) async throws(SessionKitError) -> UserProfile? {
        let manager = cache.withLock { $0.use(id) } ?? makeManager(account: id.account)
        return try await manager.cachedProfile()
    }

    /// Ends the session: cleared in the store (every instance sees it) and revoked at the provider. A session
    /// that does not exist, or already ended, costs one read and writes nothing.
    @discardableResult
    public func logout(_ id: SessionID, revoke: Bool = true) async throws(SessionKitError)
        -> SessionManager.LogoutResult
    {
        try await logout(account: id.account, revoke: revoke)
    }

    /// Ends the session stored under `account` (a ``SessionID/account``), for callers that know a session only
    /// by what the store keeps, such as a back-channel logout that found it through an index.
    @discardableResult
    public func logout(account: String, revoke: Bool = true) async throws(SessionKitError)
        -> SessionManager.LogoutResult
    {
        let ended = try await clearForLogout(account: account)
        return await ended.manager.finishLogout(ended.session, revoke: revoke)
    }

    /// The session's states (signed in, renewing, signed out), starting with the current one.
    public func stateUpdates(for id: SessionID) -> AsyncStream<SessionState> {
        manager(for: id).stateUpdates()
    }

    /// Drops from memory every session whose store key `isChanged` accepts, so that its next use reads
    /// the store again. Returns how many were dropped.
    @discardableResult
    public func evict(where isChanged: (String) -> Bool) -> Int {
        cache.withLock { $0.remove(where: isChanged) }
    }

    /// How many sessions are in memory now.
    public var cachedCount: Int { cache.withLock { $0.count } }

    /// Whether ``follow(_:retryDelay:)`` is receiving the store's announcements now: a server is ready for
    /// traffic once it is, since from then on a change anywhere reaches this instance's sessions at once.
    public var isFollowingChanges: Bool { listening.isListening }

    /// The session's manager: the cached one, or a new one, cached (cheap: it reads nothing until used).
    func manager(for id: SessionID) -> SessionManager {
        cache.withLock { lru in
            if let manager = lru.use(id) { return manager }
            let manager = makeManager(account: id.account)
            lru.insert(manager, for: id, capacity: capacity)
            metrics.cachedSessions.record(lru.count)
            return manager
        }
    }

    /// Runs `body` with the session's manager. A manager that is not cached yet is admitted to the cache only
    /// once the store has shown that the session exists (or it holds a renewal the store has not saved): ids
    /// that name no session, however many arrive, never take a place in memory or push a live session out.
    /// Until then, the store's announcements reach it, and first calls for the same session share it.
    func withManager<T>(
        for id: SessionID, _ body: (SessionManager) async throws(SessionKitError) -> T
    ) async throws(SessionKitError) -> T {
        if let cached = cache.withLock({ $0.use(id) }) {
            metrics.cacheHits.increment()
            return try await body(cached)
        }
        metrics.cacheMisses.increment()
        // Reachable by the store's announcements meanwhile (a renewal elsewhere that this call waits for).
        let manager = cache.withLock { lru in lru.arrive(id) { makeManager(account: id.account) } }
        defer { cache.withLock { $0.depart(id) } }
        do {
            let result = try await body(manager)
            admit(manager, for: id)
            return result
        } catch {
            if error.code != .signInRequired && error.code != .invalidInput || manager.holdsUnsavedState {
                admit(manager, for: id)
            }
            throw error
        }
    }

    private func admit(_ manager: SessionManager, for id: SessionID) {
        cache.withLock { lru in
            if let existing = lru.use(id), !manager.holdsUnsavedState || existing.holdsUnsavedState { return }
            lru.insert(manager, for: id, capacity: capacity)
            metrics.cachedSessions.record(lru.count)
        }
    }

    /// The directory's counters.
    var metrics: DirectoryMetrics { fleet.metrics }

    /// Whether ``follow(_:retryDelay:)`` receives the store's announcements now, and how contended leases are.
    var listening: ChangeListening { fleet.listening }

    /// A manager for the session stored under `account`, whose coordinator belongs to the directory's fleet.
    func makeManager(account: String) -> SessionManager {
        SessionManager(provider: provider, account: account, clock: clock, policy: policy, logger: logger) {
            [store, versionedStore, fleet] key, held -> any SessionCoordinator in
            if let versionedStore {
                return VersionedStoreCoordinator(store: versionedStore, key: key, held: held, fleet: fleet)
            }
            return FleetUpdateCoordinator(
                base: AtomicUpdateCoordinator(store: store, key: key, held: held), fleet: fleet)
        }
    }
}
