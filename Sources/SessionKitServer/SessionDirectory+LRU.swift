import SecureStore
import SessionKit

extension SessionDirectory {
    /// The least-recently-used cache of session managers.
    ///
    /// The entries are linked in order of use, newest to oldest, through their slots: a use moves its entry to
    /// the front, an insert past the capacity drops the oldest (passing over managers that hold unsaved state),
    /// each in O(1), so a call's use or admission holds the cache's lock for a few dictionary operations, however
    /// many sessions it holds. Only the whole-cache operations (``managers``, ``remove(where:)``) are O(n).
    struct LRU {
        private struct Entry {
            let id: SessionID
            let manager: SessionManager
            let digest: String
        }

        private var slots: [Entry?] = []
        /// Each slot's neighbours in order of use (`older` toward the least recently used), `none` at either end:
        /// apart from the entries, so that a use rewrites two integers, not an entry.
        private var older: [Int] = []
        private var newer: [Int] = []
        private static let none = -1
        private var freeSlots: [Int] = []
        private var slotByID: [SessionID: Int] = [:]
        /// Each entry by the hex SHA-256 of its store key, as change notifications name items.
        private var slotByDigest: [String: Int] = [:]
        private var slotByAccount: [String: Int] = [:]
        private var newest = none
        private var oldest = none
        /// Managers that calls use before the store has shown their session exists (not admitted yet): the
        /// store's announcements reach them too, and concurrent first calls for one session share one.
        private var arriving: [SessionID: (manager: SessionManager, digest: String, calls: Int)] = [:]
        private var arrivingByDigest: [String: SessionID] = [:]

        var count: Int { slotByID.count }

        /// The manager for `id`, marked as just used, or `nil`.
        mutating func use(_ id: SessionID) -> SessionManager? {
            guard let slot = slotByID[id], let manager = slots[slot]?.manager else { return nil }
            if newest != slot {
                unlink(slot)
                linkAsNewest(slot)
            }
            return manager
        }

        /// Caches `manager` for `id` as the most recently used (in place of the one cached for `id`, if any), then
        /// drops the least recently used beyond `capacity`, except those that hold unsaved state.
        mutating func insert(_ manager: SessionManager, for id: SessionID, capacity: Int) {
            if let replaced = slotByID[id] { drop(replaced) }
            // A manager admitted by its first call has its digest already.
            let digest =
                arriving[id].flatMap { $0.manager === manager ? $0.digest : nil }
                ?? SecureStoreChange.digest(ofKey: manager.storeKey)
            let entry = Entry(id: id, manager: manager, digest: digest)
            let slot: Int
            if let free = freeSlots.popLast() {
                slot = free
                slots[slot] = entry
            } else {
                slot = slots.count
                slots.append(entry)
                older.append(Self.none)
                newer.append(Self.none)
            }
            slotByID[id] = slot
            slotByDigest[digest] = slot
            slotByAccount[manager.account] = slot
            linkAsNewest(slot)
            // A manager that holds a renewal the store has not saved (the database was down) stays, whatever
            // its age: dropping it would lose the only copy of a refresh token the provider has rotated.
            var candidate = oldest
            var unvisited = slotByID.count
            while slotByID.count > capacity, candidate != Self.none, unvisited > 0 {
                unvisited -= 1
                let current = candidate
                candidate = newer[current]
                if current != slot, slots[current]?.manager.holdsUnsavedState == false { drop(current) }
            }
        }

        /// The cached manager of the session stored under `account`, if any.
        func manager(account: String) -> SessionManager? {
            slotByAccount[account].flatMap { slots[$0]?.manager }
        }

        /// The manager whose store key has this hex SHA-256, if it is cached or in use by a first call.
        func manager(digest: String) -> SessionManager? {
            slotByDigest[digest].flatMap { slots[$0]?.manager }
                ?? arrivingByDigest[digest].flatMap { arriving[$0]?.manager }
        }

        /// Every cached manager, and those in use by first calls.
        var managers: [SessionManager] {
            slotByID.values.compactMap { slots[$0]?.manager } + arriving.values.map(\.manager)
        }

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
            let dropped = slotByID.values.filter { slots[$0].map { isChanged($0.manager.storeKey) } ?? false }
            for slot in dropped { drop(slot) }
            return dropped.count
        }

        /// Drops the entry of the session stored under `account`, if it is cached.
        mutating func remove(account: String) {
            if let slot = slotByAccount[account] { drop(slot) }
        }

        private mutating func drop(_ slot: Int) {
            guard let entry = slots[slot] else { return }
            unlink(slot)
            slots[slot] = nil
            freeSlots.append(slot)
            slotByID[entry.id] = nil
            slotByDigest[entry.digest] = nil
            slotByAccount[entry.manager.account] = nil
        }

        private mutating func unlink(_ slot: Int) {
            let (before, after) = (older[slot], newer[slot])
            if before != Self.none { newer[before] = after } else { oldest = after }
            if after != Self.none { older[after] = before } else { newest = before }
            older[slot] = Self.none
            newer[slot] = Self.none
        }

        private mutating func linkAsNewest(_ slot: Int) {
            older[slot] = newest
            if newest != Self.none { newer[newest] = slot } else { oldest = slot }
            newest = slot
        }
    }
}
