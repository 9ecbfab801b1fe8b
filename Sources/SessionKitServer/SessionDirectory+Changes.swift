public import SecureStore
import SessionKit
import Synchronization

extension SessionDirectory {
    /// Makes cached sessions read the store again as soon as any instance changes them (renewal, logout,
    /// sweep), as `feed` announces it, until the calling task is cancelled. Servers run it as a
    /// ``ChangeFollower`` service.
    ///
    /// A store such as PostgreSQL announces each committed change within milliseconds, so a logout on one
    /// instance ends the session on every other well within a second, and a renewal on one hands its tokens to
    /// the others without a read when the store announces the written record. This directory's own writes are not read
    /// again: the session that wrote holds what it wrote. When the announcements stop (the connection was
    /// lost, the database restarted), changes may have been missed: every cached session reads the store
    /// again, and listening starts again after `retryDelay`.
    public func follow(_ feed: any SecureStoreChangeFeed, retryDelay: Duration = .seconds(1)) async {
        while !Task.isCancelled {
            do {
                let changes = try await feed.changes()
                listening.set(true)
                // Changes made before listening began were not heard: every cached session reads the store again.
                storeDidChange(digest: nil)
                for try await change in changes where !change.isOwnWrite {
                    storeDidChange(digest: change.keyDigest, item: change.item)
                }
            } catch {
                // Unavailable, or the stream ended with an error: missed changes are possible.
            }
            listening.set(false)
            storeDidChange(digest: nil)
            try? await Task.sleep(for: retryDelay)
        }
    }

    /// Tells the cached session whose store key has this hex SHA-256 (every cached session for `nil`) that its
    /// record changed: it takes `item` when the store announced the record with the change, or else reads the
    /// store on its next use; a call waiting for its renewal looks at once. The managers stay cached, so state
    /// streams handed out earlier go on.
    func storeDidChange(digest: String?, item: VersionedItem? = nil) {
        let managers = cache.withLock { lru in digest.map { lru.manager(digest: $0).map { [$0] } ?? [] } ?? lru.managers
        }
        for manager in managers {
            if let item, digest != nil { manager.storeDidChange(to: item) } else { manager.storeDidChange() }
        }
    }
}
