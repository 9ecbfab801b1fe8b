import PostgresNIO
public import SecureStore
import Synchronization

extension PostgresSessionStore: SecureStoreSweeping {
    /// Deletes this service's items (sessions) and journal entries not written for `idle`, announcing each
    /// deletion like any other, and returns how many items went. Run it periodically from one instance or
    /// from all, as `SessionKitServer`'s `IdleSweep` service (two sweeps at once delete each row once).
    ///
    /// A session in use is written at least once per access-token lifetime, when it is renewed; reading a
    /// valid token writes nothing. So `idle` must be longer than the provider's access tokens live: a
    /// session swept sooner would end while its user is still active. Past the refresh token's own
    /// lifetime a session cannot be renewed anyway: an `idle` no longer than that lifetime keeps the table
    /// to sessions that can still work.
    ///
    /// - Throws: ``SecureStore/SecureStoreError/Code/invalidArgument`` when `idle` is under a minute;
    ///   ``SecureStore/SecureStoreError/Code/unavailable`` when the database cannot be reached.
    @discardableResult
    public func sweep(idleFor idle: Duration) async throws(SecureStoreError) -> Int {
        guard idle >= .seconds(60) else {
            throw SecureStoreError(
                code: .invalidArgument,
                message: "a sweep of sessions idle for \(idle) would end active sessions; give at least a minute, "
                    + "and more than the access tokens' lifetime")
        }
        let seconds = Double(idle.components.seconds)
        let prefix = service + ":"
        return try await call("sweeping idle items") { [self] connection in
            _ = try await execute(
                connection,
                """
                DELETE FROM sessionkit_journal WHERE service = \(service)
                    AND updated_at < now() - make_interval(secs => \(seconds))
                """)
            let rows = try await executeCommitted(
                connection,
                """
                WITH swept AS (
                    DELETE FROM sessionkit_items WHERE service = \(service)
                        AND updated_at < now() - make_interval(secs => \(seconds))
                    RETURNING key_digest),
                announced AS (
                    SELECT pg_notify(\(Self.notificationChannel), \(prefix)::text || encode(key_digest, 'hex'))
                    FROM swept)
                SELECT count(*)::bigint FROM announced
                """)
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        }
    }
}
