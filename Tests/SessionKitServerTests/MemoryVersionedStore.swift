import Foundation
import SecureStore
import Synchronization

/// A `VersionedSecureStore` in memory, for the versioned coordinator's tests without PostgreSQL: versions,
/// conditional writes that bring the stored item back when refused, and leases taken by reads beside the item, as
/// the protocol describes them. `refuseAll` refuses every conditional write (as endless contention would).
final class MemoryVersionedStore: VersionedSecureStore {
    private struct Item {
        var data: Data?
        var version: UInt64 = 0
        var lease: ItemLease?
        var dueAt: Date?
    }

    let service = "tests.versioned.\(UUID().uuidString)"
    private let items = Mutex([String: Item]())
    /// Plain and versioned reads asked for (leasing reads are not counted).
    let reads = Atomic(0)
    /// Conditional writes asked for, written or refused.
    let replaces = Atomic(0)
    /// Plain updates asked for.
    let updates = Atomic(0)
    let refuseAll = Atomic(false)

    func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        reads.add(1, ordering: .relaxed)
        return items.withLock { $0[key]?.data }
    }

    func setData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        items.withLock { Self.write(data, dueAt: nil, to: &$0[key, default: Item()]) }
    }

    func deleteItem(forKey key: String) async throws(SecureStoreError) { items.withLock { $0[key] = nil } }
    func deleteAll() async throws(SecureStoreError) { items.withLock { $0 = [:] } }
    func keys() async throws(SecureStoreError) -> [String] { items.withLock { $0.keys.sorted() } }

    nonisolated(nonsending) func update(forKey key: String, _ transform: (Data?) throws -> Data?) async throws -> Data?
    {
        updates.add(1, ordering: .relaxed)
        return try items.withLock { items in
            let next = try transform(items[key]?.data)
            Self.write(next, dueAt: nil, to: &items[key, default: Item()])
            return next
        }
    }

    func versionedData(forKey key: String) async throws(SecureStoreError) -> VersionedItem {
        reads.add(1, ordering: .relaxed)
        return items.withLock { Self.versioned($0[key]) }
    }

    func replace(forKey key: String, ifVersion version: UInt64, with data: Data?, dueAt: Date?)
        async throws(SecureStoreError) -> VersionedWrite
    {
        replaces.add(1, ordering: .relaxed)
        return items.withLock { items in
            let current = items[key] ?? Item()
            guard current.version == version, !refuseAll.load(ordering: .relaxed) else {
                return .refused(current: Self.versioned(current))
            }
            Self.write(data, dueAt: dueAt, to: &items[key, default: Item()])
            return .written(version: items[key]?.version ?? 0)
        }
    }

    func leaseIfDue(forKey key: String, dueBy threshold: Date, lease: ItemLease)
        async throws(SecureStoreError) -> LeasedRead
    {
        items.withLock { items in
            guard var item = items[key], let dueAt = item.dueAt, dueAt <= threshold else {
                return LeasedRead(item: Self.versioned(items[key]), outcome: .notLeased)
            }
            if let held = item.lease, held.until > Date() {
                if held.owner == lease.owner { return LeasedRead(item: Self.versioned(item), outcome: .notLeased) }
                return LeasedRead(
                    item: VersionedItem(data: nil, version: item.version, lease: held), outcome: .heldElsewhere)
            }
            item.lease = lease
            item.version += 1
            items[key] = item
            return LeasedRead(item: Self.versioned(item), outcome: .leased)
        }
    }

    /// The item's version, for a test to move it on behind a coordinator's back.
    func version(forKey key: String) -> UInt64 { items.withLock { $0[key]?.version ?? 0 } }

    private static func versioned(_ item: Item?) -> VersionedItem {
        VersionedItem(data: item?.data, version: item?.version ?? 0, lease: item?.lease)
    }

    private static func write(_ data: Data?, dueAt: Date?, to item: inout Item) {
        item.data = data
        item.version += 1
        item.lease = nil
        item.dueAt = dueAt
    }
}
