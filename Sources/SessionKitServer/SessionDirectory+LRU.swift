import SessionKit

extension SessionDirectory {
    /// The least-recently-used cache of session managers.
    ///
    /// Each use stamps the entry with a counter; when an insert passes the capacity, the oldest eighth is
    /// dropped in one pass, so eviction costs O(log n) per insert on average.
    struct LRU {
        private var entries: [SessionID: (manager: SessionManager, lastUse: UInt64)] = [:]
        private var clock: UInt64 = 0

        var count: Int { entries.count }

        /// The manager for `id`, marked as just used, or `nil`.
        mutating func use(_ id: SessionID) -> SessionManager? {
            guard let entry = entries[id] else { return nil }
            clock += 1
            entries[id] = (entry.manager, clock)
            return entry.manager
        }

        mutating func insert(_ manager: SessionManager, for id: SessionID, capacity: Int) {
            clock += 1
            entries[id] = (manager, clock)
            guard entries.count > capacity else { return }
            let excess = entries.count - capacity + max(0, capacity / 8)
            let oldest = entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(excess).map(\.key)
            for key in oldest where key != id { entries[key] = nil }
        }

        /// Drops the entries whose store key `isChanged` accepts; returns how many.
        mutating func remove(where isChanged: (String) -> Bool) -> Int {
            let keys = entries.filter { isChanged($0.value.manager.storeKey) }.map(\.key)
            for key in keys { entries[key] = nil }
            return keys.count
        }
    }
}
