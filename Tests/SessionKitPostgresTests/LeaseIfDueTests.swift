import Foundation
import Logging
import PostgresNIO
import SecureStore
import SessionKitPostgresTestSupport
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
        // Another reader learns who renews it and at what version, without the value it could not use.
        let second = try await store.leaseIfDue(forKey: "k", dueBy: Self.now, lease: Self.other)
        #expect(second.outcome == .heldElsewhere && second.item.version == first.item.version)
        #expect(second.item.data == nil, "a reader that must wait is not sent the value")
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

    @Test(
        "a due item comes with its value under a lapsed lease or the reader's own, without it under another's live one",
        arguments: [false, true])
    func valueUnlessHeldElsewhere(batched: Bool) async throws {
        let store = try await TestPostgres.store()
        let due = Self.now.addingTimeInterval(-10)
        for key in ["lapsed", "own", "live"] {
            _ = try await store.replace(forKey: key, ifVersion: 0, with: Data(key.utf8), dueAt: due)
        }
        // Not due for this reader, though another instance (with a longer minimum lifetime) leased it: it serves.
        _ = try await store.replace(
            forKey: "early", ifVersion: 0, with: Data("early".utf8), dueAt: Self.now.addingTimeInterval(600))
        let keys = ["lapsed", "own", "live", "early"]
        let lapsed = ItemLease(owner: "instance-b", until: Self.now.addingTimeInterval(-1))
        let digests = try keys.map { try PostgresSessionStore.digest($0) }
        let owners = [lapsed.owner, Self.lease.owner, Self.other.owner, Self.other.owner]
        let untils = [lapsed.until, Self.lease.until, Self.other.until, Self.other.until]
        // Leases as other instances' reads leave them, written on a connection of the test's own.
        let writer = try await HeldLock.take(in: store, key: "lapsed")
        for (digest, (owner, until)) in zip(digests, zip(owners, untils)) {
            _ = try await writer.connection.query(
                """
                UPDATE sessionkit_items SET lease_owner = \(owner), lease_until = \(until)
                WHERE service = \(store.service) AND key_digest = \(digest)
                """, logger: Logger(label: "lease-test")
            ).collect()
        }
        try await writer.release()
        // One call at a time goes out alone; several at once share a batch statement.
        let reads: [String: LeasedRead]
        if batched {
            reads = try await withThrowingTaskGroup(of: (String, LeasedRead).self) { group in
                for key in keys {
                    group.addTask { (key, try await store.leaseIfDue(forKey: key, dueBy: Self.now, lease: Self.lease)) }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
        } else {
            var one: [String: LeasedRead] = [:]
            for key in keys {
                one[key] = try await store.leaseIfDue(forKey: key, dueBy: Self.now, lease: Self.lease)
            }
            reads = one
        }
        // A lapsed lease is not taken over by the read (the caller decides), and the value comes for that.
        #expect(reads["lapsed"]?.outcome == .notLeased && reads["lapsed"]?.item.data == Data("lapsed".utf8))
        #expect(reads["own"]?.outcome == .notLeased && reads["own"]?.item.data == Data("own".utf8))
        #expect(reads["live"]?.outcome == .heldElsewhere && reads["live"]?.item.data == nil)
        #expect(Self.same(reads["live"]?.item.lease, Self.other))
        #expect(reads["early"]?.outcome == .notLeased && reads["early"]?.item.data == Data("early".utf8))
        #expect(Self.same(reads["early"]?.item.lease, Self.other))
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
        #expect(read.outcome == .heldElsewhere && read.item.data == nil)
        #expect(read.item.version == written + 1 && read.item.lease?.owner == "instance-b", "the row as it is now")
        let stored = try await store.versionedData(forKey: "k")
        #expect(stored.version == read.item.version && stored.lease == read.item.lease)
    }

    @Test("two instances read 300 due items at once: each leased exactly once, each reader its own item, in batches")
    func batchedReads() async throws {
        let service = "tests.\(UUID().uuidString)"
        let writer = try await TestPostgres.store(service: service)
        let keys = (0..<300).map { "session-\($0)" }
        for key in keys {
            _ = try await writer.replace(
                forKey: key, ifVersion: 0, with: Data("value of \(key)".utf8), dueAt: Self.now.addingTimeInterval(-10))
        }
        // Among them, items that are not due, one with another lease on it, and keys with no row.
        _ = try await writer.replace(
            forKey: "later", ifVersion: 0, with: Data("later".utf8), dueAt: Self.now.addingTimeInterval(3600))
        _ = try await writer.replace(
            forKey: "held", ifVersion: 0, with: Data("held".utf8), dueAt: Self.now.addingTimeInterval(-10))
        #expect(try await writer.leaseIfDue(forKey: "held", dueBy: Self.now, lease: Self.other).outcome == .leased)
        let extra = ["later", "held", "missing-1", "missing-2"]
        let instances = [
            (try await TestPostgres.store(service: service), "instance-a"),
            (try await TestPostgres.store(service: service), "instance-c"),
        ]
        let reads = try await withThrowingTaskGroup(of: (String, String, LeasedRead).self) { group in
            for (store, owner) in instances {
                // Each instance in its own order, as two servers meet the same sessions.
                for key in (owner == "instance-a" ? keys + extra : (keys + extra).reversed()) {
                    group.addTask {
                        let lease = ItemLease(owner: owner, until: Self.now.addingTimeInterval(30))
                        return (key, owner, try await store.leaseIfDue(forKey: key, dueBy: Self.now, lease: lease))
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(reads.count == 2 * (keys.count + extra.count))
        for (key, _, read) in reads where !extra.contains(key) && read.outcome == .leased {
            #expect(read.item.data == Data("value of \(key)".utf8), "the reader of \(key) got its own item")
        }
        for key in keys {
            let leased = reads.filter { $0.0 == key && $0.2.outcome == .leased }
            #expect(leased.count == 1, "\(key) leased \(leased.count) times")
            let other = reads.first { $0.0 == key && $0.2.outcome != .leased }
            #expect(other?.2.outcome == .heldElsewhere && other?.2.item.data == nil, "\(key) came without its value")
            #expect(other?.2.item.lease?.owner == leased.first?.1, "the other reader of \(key) saw the lease")
            #expect(other?.2.item.version == leased.first?.2.item.version, "at the version the lease gave \(key)")
        }
        for (key, _, read) in reads where extra.contains(key) {
            switch key {
            case "later":
                #expect(read.outcome == .notLeased && read.item.data == Data("later".utf8) && read.item.lease == nil)
            case "held":
                #expect(read.outcome == .heldElsewhere && read.item.data == nil)
                #expect(read.item.lease?.owner == Self.other.owner)
            default: #expect(read == LeasedRead(item: VersionedItem(data: nil, version: 0), outcome: .notLeased))
            }
        }
        let statements = instances.map(\.0.statementCount).reduce(0, +)
        #expect(statements < reads.count / 4, "\(statements) statements for \(reads.count) reads")
        // A batched read that found a row leased by the other instance read it without a row lock: a lock would
        // stay on the row and make another instance's batch skip the row as busy. A row's xmax names who locked it
        // last: the lease's own statement (its xmin), or else a reader. Only a read that met a row in the instant
        // its lease was being taken locks it (one sent alone rewrites the row instead).
        let locked = try await writer.raw(
            """
            SELECT count(*)::int FROM sessionkit_items
            WHERE service = \(service) AND xmax::text NOT IN ('0', xmin::text)
            """)
        let lockedRows = try locked.first?.decode(Int.self) ?? -1
        #expect(
            lockedRows >= 0 && lockedRows < keys.count / 3, "\(lockedRows) of \(keys.count) rows were locked by a read")
    }

    @Test("a row held by another transaction holds up only its own reader: the other sessions' reads go on")
    func heldRowHoldsUpNoOne() async throws {
        let store = try await TestPostgres.store()
        let keys = (0..<40).map { "session-\($0)" }
        for key in keys + ["held"] {
            _ = try await store.replace(
                forKey: key, ifVersion: 0, with: Data(key.utf8), dueAt: Self.now.addingTimeInterval(-10))
        }
        let held = try await HeldLock.take(in: store, key: "held")
        // The held row's read first, then the others while it is out or waiting.
        let holding = Task {
            (try await store.leaseIfDue(forKey: "held", dueBy: Self.now, lease: Self.lease), ContinuousClock.now)
        }
        let started = ContinuousClock.now
        let reads: [LeasedRead]
        do {
            reads = try await withThrowingTaskGroup(of: LeasedRead.self) { group in
                for key in keys {
                    group.addTask { try await store.leaseIfDue(forKey: key, dueBy: Self.now, lease: Self.lease) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        } catch {
            try? await held.release()
            throw error
        }
        let elapsed = ContinuousClock.now - started
        #expect(reads.count == keys.count && reads.allSatisfy { $0.outcome == .leased })
        #expect(elapsed < .seconds(3), "the other sessions' reads took \(elapsed) behind one held row")
        try await Task.sleep(for: .milliseconds(200))
        let released = ContinuousClock.now
        try await held.release()
        let (read, answered) = try await holding.value
        #expect(read.outcome == .leased && read.item.data == Data("held".utf8))
        #expect(answered > released, "the held row's reader waited for the row")
    }

    /// Whether two leases are the same, to the microsecond PostgreSQL keeps.
    static func same(_ lease: ItemLease?, _ expected: ItemLease) -> Bool {
        guard let lease else { return false }
        return lease.owner == expected.owner && abs(lease.until.timeIntervalSince(expected.until)) < 0.001
    }
}
