import SecureStore

extension SessionDirectory {
    /// Drops cached sessions as soon as any instance changes them in `store` (renewal, logout, sweep), until
    /// the calling task is cancelled: run it in a task of its own beside the server.
    ///
    /// PostgreSQL announces each committed change within milliseconds (`LISTEN`/`NOTIFY`), so a logout on one
    /// instance ends the session on every other well within a second. When the announcements stop (the
    /// connection was lost, PostgreSQL restarted), changes may have been missed: every cached session is
    /// dropped, and listening starts again after `retryDelay`.
    ///
    /// ```swift
    /// let sessions = SessionDirectory(provider: provider, store: store)
    /// let follower = Task { await sessions.follow(store) }
    /// ```
    public func follow(_ store: PostgresSessionStore, retryDelay: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            do {
                let changes = try await store.changes()
                // Changes made before listening began were not heard: forget everything once.
                evict { _ in true }
                for try await change in changes {
                    evict { change.affects(key: $0) }
                }
            } catch {
                // Unavailable, or the stream ended with an error: missed changes are possible.
            }
            evict { _ in true }
            try? await Task.sleep(for: retryDelay)
        }
    }
}
