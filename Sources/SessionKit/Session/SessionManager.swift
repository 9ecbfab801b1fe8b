public import Logging
public import SecureStore
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Keeps one account signed in: stores the credentials after sign-in, restores them on the next
/// launch, renews them before they expire, and ends the session only when the provider says so.
///
/// This is the seeds' "encapsulate session handling" step, done once for every app and CLI:
///
/// ```swift
/// let session = SessionManager(provider: provider, store: store)
/// try await session.store(try await provider.signIn(username: user, password: password))   // after sign-in
/// let credentials = try await session.credentials(minTTL: 60)                             // before each API call
/// try await session.logout()                                                              // revokes and clears
/// ```
///
/// - Valid credentials come from memory, with no store read and no actor hop.
/// - Concurrent callers during a renewal share it: one request, every caller gets its result. Processes
///   sharing the store coordinate through a lease in the stored record, so refresh-token rotation with
///   reuse detection never signs the user out.
/// - A transient failure (network, timeout, 429, 5xx, store unavailable) keeps the session and throws a
///   retryable ``SessionKitError``; only the provider's definitive `invalid_grant` ends it.
public actor SessionManager {
    /// The provider client used for renewal, revocation and userinfo.
    public nonisolated let provider: ProviderClient
    /// The account name that, with the issuer and client id, identifies this session in the store.
    public nonisolated let account: String
    /// The store item that holds this session's record.
    public nonisolated let storeKey: String
    let clock: SessionClock
    let logger: Logger?
    let policy: RenewalPolicy
    /// Identifies this instance in renewal leases.
    let ownerID = LeaseOwnerID.next()
    /// The last record read, written or announced, for the fast path: kept by ``coordinator``.
    let cache: HeldSession
    /// How the record is read, leased, written and journaled, and what the other instances sharing it ask.
    let coordinator: any SessionCoordinator
    let states: StateBroadcaster
    /// The renewal under way, if any. In a `Mutex` rather than on the actor so that callers arriving
    /// during a renewal wait for its result without queueing on the actor, which the renewal itself needs.
    let renewal = Mutex<RunningRenewal?>(nil)
    /// A renewal whose credentials could not be saved yet; saved before anything else renews.
    let pending = Mutex<PendingRenewal?>(nil)
    /// Wakes calls waiting for another instance's renewal when the store announces a change.
    let changes = ChangeSignal()

    /// Creates a manager for `account`'s session with `provider`, stored in `store` (an app's or a
    /// command-line tool's store: Keychain, keyring, encrypted file, memory).
    ///
    /// Nothing is read until the first call; several managers (even in several processes) may share one
    /// store and account.
    public init(
        provider: ProviderClient,
        store: any SecureStore,
        account: String = "default",
        clock: SessionClock = .system,
        policy: RenewalPolicy = .init(),
        logger: Logger? = nil
    ) {
        self.init(provider: provider, account: account, clock: clock, policy: policy, logger: logger) { key, held in
            AtomicUpdateCoordinator(store: store, key: key, held: held)
        }
    }

    /// Creates a manager for `account`'s session with `provider`, stored in an asynchronous store: no call blocks a
    /// thread while the store answers. The record is written with the store's atomic `update`; a store that several
    /// server instances share and that versions its items (such as SessionKitPostgres's) is coordinated by
    /// SessionKitServer instead, through its `SessionDirectory` or its initialiser for a `VersionedSecureStore`.
    public init(
        provider: ProviderClient,
        store: any AsyncSecureStore,
        account: String = "default",
        clock: SessionClock = .system,
        policy: RenewalPolicy = .init(),
        logger: Logger? = nil
    ) {
        self.init(provider: provider, account: account, clock: clock, policy: policy, logger: logger) { key, held in
            AtomicUpdateCoordinator(store: store, key: key, held: held)
        }
    }

    /// A manager whose record is reached through the coordinator that `coordinator` makes for the record's store
    /// key and what the manager holds in memory: how the server half (SessionKitServer) and tests bring their own.
    package init(
        provider: ProviderClient, account: String, clock: SessionClock, policy: RenewalPolicy, logger: Logger?,
        coordinator makeCoordinator: (_ storeKey: String, _ held: HeldSession) -> any SessionCoordinator
    ) {
        self.provider = provider
        self.account = account
        self.clock = clock
        self.policy = policy
        self.logger = logger
        let configuration = provider.configuration
        let storeKey = "sessionkit.session|\(configuration.issuer.absoluteString)|\(configuration.clientID)|\(account)"
        self.storeKey = storeKey
        let states = StateBroadcaster()
        self.states = states
        let held = HeldSession(states: states)
        self.cache = held
        self.coordinator = makeCoordinator(storeKey, held)
    }

    /// Stores credentials after sign-in, replacing any earlier session of this account.
    public func store(_ credentials: Credentials) async throws(SessionKitError) {
        let (record, _) = try await updateRecord { current in
            var next = current.cleared()
            next.credentials = credentials
            return next
        }
        await dropPendingRenewal()
        states.publish(.active(until: credentials.expiresAt))
        logger?.debug("session stored", metadata: ["account": "\(account)", "generation": "\(record.generation)"])
    }

    /// Whether there are stored credentials whose access token is valid for at least `minTTL` seconds.
    /// Checks locally, without the network.
    ///
    /// - Throws: ``SessionKitError/Code/storeUnavailable`` when the store cannot be read: that is not "no".
    public func hasValidCredentials(minTTL: TimeInterval = 0) async throws(SessionKitError) -> Bool {
        try await currentRecord().credentials?.isValid(minTTL: minTTL, now: clock.now()) ?? false
    }

    /// Whether the stored credentials carry a refresh token, so they can be renewed without the user.
    public func canRenew() async throws(SessionKitError) -> Bool {
        try await currentRecord().credentials?.canRenew ?? false
    }

    /// The stored credentials as they are, valid or not, without renewing; `nil` when signed out.
    public func storedCredentials() async throws(SessionKitError) -> Credentials? {
        try await currentRecord().credentials
    }

    /// Whether a session is stored at all, valid or not.
    public func hasSession() async throws(SessionKitError) -> Bool {
        try await currentRecord().credentials != nil
    }

    /// Credentials whose access token is valid for at least `minTTL` seconds, renewed first when needed.
    ///
    /// - Parameters:
    ///   - minTTL: The seconds the access token must stay valid, so a request started now does not fail
    ///     on the way.
    ///   - scope: A scope to renew into when it differs from the stored one (a down-scoped token).
    /// - Throws: ``SessionKitError/Code/signInRequired`` when there is no session or the provider ended
    ///   it; a retryable ``SessionKitError`` when renewal failed for a transient reason (the session is kept).
    nonisolated(nonsending) public func credentials(minTTL: TimeInterval = 0, scope: String? = nil)
        async throws(SessionKitError) -> Credentials
    {
        if let cached = cache.withLock({ $0?.credentials }),
            cached.satisfies(minTTL: minTTL, scope: scope, now: clock.now())
        {
            return cached
        }
        if let running = renewal.withLock({ $0 }), running.target == .session {
            do {
                return try await running.task.value
            } catch {
                throw ProviderClient.wrap(error)
            }
        }
        return try await validCredentials(minTTL: minTTL, scope: scope, force: false)
    }

    /// Credentials valid for at least `minTTL` seconds from memory or the store, or `nil` when they would
    /// have to be renewed first (or there is no session). Never renews, never goes to the network, and
    /// starts no task: for a command-line tool's hot path, which falls back to
    /// ``credentials(minTTL:scope:)`` on `nil`. With an asynchronous store only memory is looked at, so `nil`
    /// may also mean "not read yet".
    ///
    /// - Throws: ``SessionKitError/Code/storeUnavailable`` or ``SessionKitError/Code/storeCorrupted`` when
    ///   the store cannot be read: that is not "signed out".
    public nonisolated func localCredentials(minTTL: TimeInterval = 0, scope: String? = nil) throws(SessionKitError)
        -> Credentials?
    {
        guard let current = try currentRecordWithoutSuspending()?.credentials,
            current.satisfies(minTTL: minTTL, scope: scope, now: clock.now())
        else { return nil }
        return current
    }

    /// Renews now, whatever the expiry, and returns the new credentials.
    public func renew(scope: String? = nil) async throws(SessionKitError) -> Credentials {
        try await validCredentials(minTTL: 0, scope: scope, force: true)
    }

    /// The session's states, starting with the current one once it is known.
    public nonisolated func stateUpdates() -> AsyncStream<SessionState> {
        states.stream()
    }

    /// Tells the manager that its record changed in the store, for a store that announces changes (such as
    /// PostgreSQL's NOTIFY): the cached credentials are dropped, so the next call reads the store, and a call
    /// waiting for another instance's renewal looks at once instead of at its next poll. Cheap; reads nothing.
    public nonisolated func storeDidChange() {
        cache.drop()
        changes.signal()
    }

    /// Tells the manager that its record changed in the store and is now `item`, as a store that announces
    /// written items says (``SecureStore/SecureStoreChange/item``): the manager takes it, so neither the next
    /// call nor a call waiting for another instance's renewal reads the store.
    ///
    /// Only an item that moves forward a version this manager has read or written is taken: an authentic
    /// announcement may be a replay of an old write, so an item at a version no newer than that is ignored (what is
    /// held is as new, and waiting calls are not woken). A manager that has read no version yet (or found no
    /// record) keeps the item aside and takes it once its read gives a version the item moves forward; until then
    /// the next call reads the store. An item that cannot be read is treated as ``storeDidChange()``. Versions are
    /// kept for a ``SecureStore/VersionedSecureStore`` coordinated by SessionKitServer (a `SessionDirectory`'s
    /// managers, or its initialiser for such a store); any other manager treats every announced item as
    /// ``storeDidChange()``.
    public nonisolated func storeDidChange(to item: VersionedItem) {
        if coordinator.takeAnnounced(item) { changes.signal() }
    }

    /// Whether this manager holds something the store does not have yet: a renewal under way, or renewed
    /// credentials that could not be saved. A cache of managers must not drop such a manager, or the next
    /// call would send the spent refresh token again.
    package nonisolated var holdsUnsavedState: Bool {
        renewal.withLock { $0 != nil } || pending.withLock { $0 != nil }
    }

    /// Whether the record held in memory shows a renewal under way (this instance's or another's): what the
    /// tests watch for to know that an announced lease has arrived.
    package nonisolated var heldRecordShowsRenewal: Bool {
        cache.withLock { $0?.renewal != nil }
    }

    /// The record held in memory, if any: what ``localCredentials(minTTL:scope:)`` read, for ``takeOver(_:)``.
    package nonisolated var heldRecord: SessionRecord? {
        cache.withLock { $0 }
    }

    /// Holds `record`, which another manager of the same session in this process read from the store just now, and
    /// starts the next renewal from it instead of reading the store again: how a command-line tool whose fast path
    /// found the token due (with a manager built to send nothing) hands over to the manager that renews.
    /// A record changed in the store since costs a refused lease, which brings the stored one; never a wrong write.
    package nonisolated func takeOver(_ record: SessionRecord) {
        cache.handOver(record)
    }

    /// Forgets what this instance holds in memory, so the next call reads the store again (for
    /// example after another process signed out).
    public func reload() async throws(SessionKitError) {
        cache.drop()
        _ = try await currentRecord()
    }
}
