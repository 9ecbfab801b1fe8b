import SecureStore
import SessionKit
import Synchronization

extension SessionDirectory {
    /// Makes cached sessions read the store again as soon as any instance changes them in `store` (renewal,
    /// logout, sweep), until the calling task is cancelled: run it in a task of its own beside the server.
    ///
    /// PostgreSQL announces each committed change within milliseconds (`LISTEN`/`NOTIFY`), so a logout on one
    /// instance ends the session on every other well within a second. When the announcements stop (the
    /// connection was lost, PostgreSQL restarted), changes may have been missed: every cached session reads
    /// the store again, and listening starts again after `retryDelay`.
    ///
    /// ```swift
    /// let sessions = SessionDirectory(provider: provider, store: store)
    /// let follower = Task { await sessions.follow(store) }
    /// ```
    public func follow(_ store: PostgresSessionStore, retryDelay: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            do {
                let changes = try await store.changes()
                // Changes made before listening began were not heard: every cached session reads the store again.
                storeDidChange(digest: nil)
                for try await change in changes {
                    storeDidChange(digest: change.keyDigest)
                }
            } catch {
                // Unavailable, or the stream ended with an error: missed changes are possible.
            }
            storeDidChange(digest: nil)
            try? await Task.sleep(for: retryDelay)
        }
    }

    /// Tells the cached session whose store key has this hex SHA-256 (every cached session for `nil`) that its
    /// record changed: it reads the store on its next use, and a call waiting for its renewal looks at once.
    /// The managers stay cached, so state streams handed out earlier go on.
    func storeDidChange(digest: String?) {
        let managers = cache.withLock { lru in digest.map { lru.manager(digest: $0).map { [$0] } ?? [] } ?? lru.managers
        }
        for manager in managers { manager.storeDidChange() }
    }
}
