public import Logging
public import SecureStore
public import SessionKit

extension SessionManager {
    /// Creates a manager for `account`'s session with `provider`, stored in a store that versions its items and
    /// that several server instances may share (such as SessionKitPostgres's).
    ///
    /// Its record is written conditionally (one round trip each, no lock), a first call leases a session that is
    /// due for renewal in the same round trip as its read, and a record the store announces
    /// (``SessionKit/SessionManager/storeDidChange(to:)``) is taken only when it moves forward a version this
    /// manager has seen. A ``SessionDirectory`` makes its managers this way, and also tells them whether its
    /// ``ChangeFollower`` follows the store's announcements and counts their renewals.
    ///
    /// Every instance that shares such a store coordinates this way: a manager made with SessionKit's initialiser
    /// for an `AsyncSecureStore` writes with the store's plain `update`, which cannot see a lease taken by a read.
    public init(
        provider: ProviderClient,
        store: any VersionedSecureStore,
        account: String = "default",
        clock: SessionClock = .system,
        policy: RenewalPolicy = .init(),
        logger: Logger? = nil
    ) {
        self.init(provider: provider, account: account, clock: clock, policy: policy, logger: logger) { key, held in
            VersionedStoreCoordinator(store: store, key: key, held: held, fleet: nil)
        }
    }
}
