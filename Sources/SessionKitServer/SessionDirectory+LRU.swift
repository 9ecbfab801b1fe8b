import SecureStore
import SessionKit

extension SessionDirectory {
    /// The least-recently-used cache of session managers.
    ///
    /// Each use stamps the entry with a counter; when an insert passes the capacity, the oldest eighth is
    /// dropped in one pass, so eviction costs O(log n) per insert on average.
    struct LRU {
        private var entries: [SessionID: (manager: SessionManager, digest: String, lastUse: UInt64)] = [:]
        /// Each entry's id by the hex SHA-256 of its store key, as change notifications name items.
        private var byDigest: [String: SessionID] = [:]
        private var clock: UInt64 = 0
        /// Managers that calls use before the store has shown their session exists (not admitted yet): the
        /// store's announcements reach them too, and concurrent first calls for one session share one.
        private var arriving: [SessionID: (manager: SessionManager, digest: String, calls: Int)] = [:]
        private var arrivingByDigest: [String: SessionID] = [:]

        var count: Int { entries.count }

        /// The manager for `id`, marked as just used, or `nil`.
        mutating func use(_ id: SessionID) -> SessionManager? {
            guard let entry = entries[id] else { return nil }
            clock += 1
            entries[id] = (entry.manager, entry.digest, clock)
            return entry.manager
        }

        mutating func insert(_ manager: SessionManager, for id: SessionID, capacity: Int) {
            clock += 1
            // A manager admitted by its first call has its digest already.
            let digest =
                arriving[id].flatMap { $0.manager === manager ? $0.digest : nil }
                ?? SecureStoreChange.digest(ofKey: manager.storeKey)
            entries[id] = (manager, digest, clock)
            byDigest[digest] = id
            guard entries.count > capacity else { return }
            // A manager that holds a renewal the store has not saved (the database was down) stays, whatever
            // its age: dropping it would lose the only copy of a refresh token the provider has rotated.
            let excess = entries.count - capacity + max(0, capacity / 8)
            let oldest = entries.filter { $0.key != id && !$0.value.manager.holdsUnsavedState }
                .sorted { $0.value.lastUse < $1.value.lastUse }.prefix(excess).map(\.key)
            for key in oldest { drop(key) }
        }

        /// The cached manager of the session stored under `account`, if any.
        func manager(account: String) -> SessionManager? {
            entries.values.first { $0.manager.account == account }?.manager
        }

        /// The manager whose store key has this hex SHA-256, if it is cached or in use by a first call.
        func manager(digest: String) -> SessionManager? {
            byDigest[digest].flatMap { entries[$0]?.manager }
                ?? arrivingByDigest[digest].flatMap { arriving[$0]?.manager }
        }

        /// Every cached manager, and those in use by first calls.
        var managers: [SessionManager] { entries.values.map(\.manager) + arriving.values.map(\.manager) }

        /// The manager a first call for `id` uses until the store has shown that the session exists: the one
        /// another first call for it uses, or a new one from `make`. Balance with ``depart(_:)``.
        mutating func arrive(_ id: SessionID, make: () -> SessionManager) -> SessionManager {
            if var entry = arriving[id] {
                entry.calls += 1
                arriving[id] = entry
                return entry.manager
            }
            let manager = make()
            let digest = SecureStoreChange.digest(ofKey: manager.storeKey)
            arriving[id] = (manager, digest, 1)
            arrivingByDigest[digest] = id
            return manager
        }

        /// A first call for `id` ended; the manager stays reachable while other first calls use it.
        mutating func depart(_ id: SessionID) {
            guard var entry = arriving[id] else { return }
            entry.calls -= 1
            if entry.calls > 0 {
                arriving[id] = entry
            } else {
                arriving[id] = nil
                arrivingByDigest[entry.digest] = nil
            }
        }

        /// Drops the entries whose store key `isChanged` accepts; returns how many.
        mutating func remove(where isChanged: (String) -> Bool) -> Int {
            let keys = entries.filter { isChanged($0.value.manager.storeKey) }.map(\.key)
            for key in keys { drop(key) }
            return keys.count
        }

        private mutating func drop(_ id: SessionID) {
            guard let entry = entries.removeValue(forKey: id) else { return }
            byDigest[entry.digest] = nil
        }
    }
}
