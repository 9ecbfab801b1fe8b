import Foundation
import Logging
import PostgresNIO
import SecureStore
import Testing

@testable import SessionKitPostgres

/// `leaseIfDue`: a read that also leases the item when it is due and free, in one statement, which is how an
/// instance's first call for an expired session takes the renewal.
@Suite("PostgresSessionStore leases on read", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct LeaseIfDueTests {
    static let now = Date()
    static let lease = ItemLease(owner: "instance-a", until: now.addingTimeInterval(30))
    static let other = ItemLease(owner: "instance-b", until: now.addingTimeInterval(30))

    @Test("a due item is leased to its first reader only, with its version moved on; the next write ends the lease")
    func firstReaderOnly() async throws {
        let store = try await TestPostgres.store()
        let written = try VersionedWriteTests.written(
            try await store.replace(
                forKey: "k", ifVersion: 0, with: Data("one".utf8), dueAt: Self.now.addingTimeInterval(-10)))
        let first = try await store.leaseIfDue(forKey: "k", dueBy: Self.now, lease: Self.lease)
        #expect(first.outcome == .leased && first.item.data == Data("one".utf8) && first.item.version > written)
        #expect(Self.same(first.item.lease, Self.lease))
        let second = try await store.leaseIfDue(forKey: "k", dueBy: Self.now, lease: Self.other)
        #expect(second.outcome == .notLeased && second.item.version == first.item.version)
        #expect(Self.same(second.item.lease, Self.lease), "the second reader sees the first one's lease")
        #expect(Self.same(try await store.versionedData(forKey: "k").lease, Self.lease))
        // A write from before the lease is refused, with the row and its lease.
        guard
            case .refused(let current?) = try await store.replace(
                forKey: "k", ifVersion: written, with: Data("stale".utf8))
        else {
            Issue.record("a write at the version before the lease was not refused with the row")
            return
        }
        #expect(current.version == first.item.version && Self.same(current.lease, Self.lease))
        // The holder's write ends the lease; the item falls due again when its new time comes.
        _ = try VersionedWriteTests.written(
            try await store.replace(
                forKey: "k", ifVersion: first.item.version, with: Data("two".utf8),
                dueAt: Self.now.addingTimeInterval(60)))
        #expect(try await store.versionedData(forKey: "k").lease == nil)
        let early = try await store.leaseIfDue(forKey: "k", dueBy: Self.now, lease: Self.other)
        #expect(early.outcome == .notLeased && early.item.lease == nil && early.item.data == Data("two".utf8))
        let due = try await store.leaseIfDue(forKey: "k", dueBy: Self.now.addingTimeInterval(61), lease: Self.other)
        #expect(due.outcome == .leased && Self.same(due.item.lease, Self.other))
    }

    @Test("never leased: an item with no due time, one written by setData or update (which end a lease), a missing one")
    func neverLeased() async throws {
        let store = try await TestPostgres.store()
        let late = Self.now.addingTimeInterval(3600)
        #expect(
            try await store.leaseIfDue(forKey: "missing", dueBy: late, lease: Self.lease)
                == LeasedRead(item: VersionedItem(data: nil, version: 0), outcome: .notLeased))
        _ = try await store.replace(forKey: "k", ifVersion: 0, with: Data("one".utf8), dueAt: nil)
        #expect(try await store.leaseIfDue(forKey: "k", dueBy: late, lease: Self.lease).outcome == .notLeased)
        // Leased, then overwritten by the store's other writes: the lease ends, and no due time is left.
        for write in ["setData", "update"] {
            let version = try await store.versionedData(forKey: "k").version
            _ = try await store.replace(forKey: "k", ifVersion: version, with: Data("due".utf8), dueAt: Self.now)
            #expect(try await store.leaseIfDue(forKey: "k", dueBy: late, lease: Self.lease).outcome == .leased)
            if write == "setData" {
                try await store.setData(Data("blind".utf8), forKey: "k")
            } else {
                try await store.update(forKey: "k") { _ in Data("updated".utf8) }
            }
            #expect(try await store.versionedData(forKey: "k").lease == nil, "\(write) ended the lease")
            #expect(
                try await store.leaseIfDue(forKey: "k", dueBy: late, lease: Self.other).outcome == .notLeased,
                "\(write) left no due time")
        }
    }

    @Test("two readers in the same instant: the one that waited for the other's row lock sees the other's lease")
    func contended() async throws {
        let store = try await TestPostgres.store()
        let written = try VersionedWriteTests.written(
            try await store.replace(
                forKey: "k", ifVersion: 0, with: Data("one".utf8), dueAt: Self.now.addingTimeInterval(-10)))
        // Another instance's statement holds the row: it takes the lease and commits while this read waits.
        let held = try await HeldLock.take(in: store, key: "k")
        let reading = Task { try await store.leaseIfDue(forKey: "k", dueBy: Self.now, lease: Self.lease) }
        let logger = Logger(label: "lease-test")
        let started = ContinuousClock.now
        while true {
            _ = try await held.connection.query("SELECT pg_stat_clear_snapshot()", logger: logger).collect()
            let waiting = try await held.connection.query(
                "SELECT count(*)::int FROM pg_stat_activity WHERE wait_event_type = 'Lock'", logger: logger
            ).collect()
            if try waiting.first?.decode(Int.self) ?? 0 > 0 { break }
            try #require(ContinuousClock.now - started < .seconds(10), "the read never waited for the row lock")
            try await Task.sleep(for: .milliseconds(20))
        }
        let digest = try PostgresSessionStore.digest("k")
        _ = try await held.connection.query(
            """
            UPDATE sessionkit_items SET lease_owner = 'instance-b', lease_until = now() + interval '30 seconds',
                generation = generation + 1
            WHERE service = \(store.service) AND key_digest = \(digest)
            """, logger: logger
        ).collect()
        try await held.release()
        let read = try await reading.value
        #expect(read.outcome == .notLeased)
        #expect(read.item.version == written + 1 && read.item.lease?.owner == "instance-b", "the row as it is now")
        #expect(try await store.versionedData(forKey: "k") == read.item)
    }

    /// Whether two leases are the same, to the microsecond PostgreSQL keeps.
    static func same(_ lease: ItemLease?, _ expected: ItemLease) -> Bool {
        guard let lease else { return false }
        return lease.owner == expected.owner && abs(lease.until.timeIntervalSince(expected.until)) < 0.001
    }
}
