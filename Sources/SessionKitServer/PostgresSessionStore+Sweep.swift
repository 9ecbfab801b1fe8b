import PostgresNIO
public import SecureStore

extension PostgresSessionStore {
    /// Deletes this service's items (sessions) and journal entries not written for `idle`, announcing each
    /// deletion like any other, and returns how many items went. Run it periodically from one instance or
    /// from all (it is one statement; two sweeps at once delete each row once).
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
    public func sweep(idleFor idle: Duration) throws(SecureStoreError) -> Int {
        guard idle >= .seconds(60) else {
            throw SecureStoreError(
                code: .invalidArgument,
                message: "a sweep of sessions idle for \(idle) would end active sessions; give at least a minute, "
                    + "and more than the access tokens' lifetime")
        }
        let seconds = Double(idle.components.seconds)
        let prefix = service + ":"
        return try run("sweeping idle items") { connection in
            _ = try execute(
                connection,
                """
                DELETE FROM sessionkit_journal WHERE service = \(service)
                    AND updated_at < now() - make_interval(secs => \(seconds))
                """)
            let rows = try execute(
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

    /// Sweeps every `interval` until the calling task is cancelled; a sweep that fails (the database is
    /// down) is tried again at the next interval. Run it in a task of its own beside the server.
    ///
    /// ```swift
    /// let sweeper = Task { await store.sweepPeriodically(idleFor: .seconds(14 * 86_400), every: .seconds(600)) }
    /// ```
    public func sweepPeriodically(idleFor idle: Duration, every interval: Duration) async {
        while !Task.isCancelled {
            do {
                let swept = try sweep(idleFor: idle)
                if swept > 0 { logger.info("swept idle sessions", metadata: ["count": "\(swept)"]) }
            } catch {
                logger.warning("sweeping idle sessions failed; trying again later", metadata: ["code": "\(error.code)"])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
