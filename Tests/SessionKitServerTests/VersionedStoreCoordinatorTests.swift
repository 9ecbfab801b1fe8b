import Foundation
import MetricsTestKit
import SecureStore
import Synchronization
import Testing

@testable import SessionKit
@testable import SessionKitServer

/// The server half's coordinator over a versioned store, in memory (``MemoryVersionedStore``): conditional writes,
/// leases taken by reads, announced records taken only forward, and the fleet's hooks. The same coordinator over
/// PostgreSQL is tested through `SessionManager` and `SessionDirectory` in the suites that need the database.
@Suite("Versioned store coordinator")
struct VersionedStoreCoordinatorTests {
    static let key = "sessionkit.session|tests|alice"
    static let credentials = Credentials(
        accessToken: Secret("access"), refreshToken: Secret("refresh"), expiresAt: Date().addingTimeInterval(3_600))

    /// A coordinator over `store` with memory of its own (and its fleet's, if given).
    static func coordinator(_ store: MemoryVersionedStore, fleet: DirectoryFleet? = nil) -> VersionedStoreCoordinator {
        VersionedStoreCoordinator(store: store, key: key, held: HeldSession(states: StateBroadcaster()), fleet: fleet)
    }

    /// `record` with `credentials` and its generation moved on, as the manager writes.
    static func signedIn(_ record: SessionRecord, _ credentials: Credentials = credentials) -> SessionRecord {
        var next = record
        next.credentials = credentials
        next.generation = record.generation + 1
        return next
    }

    @Test("a write is conditional on the version held; a refusal brings the stored record back and costs no read")
    func conditionalWrites() async throws {
        let store = MemoryVersionedStore()
        let (first, second) = (Self.coordinator(store), Self.coordinator(store))
        let (written, _) = try await first.update { Self.signedIn($0) }
        #expect(written.storeVersion == store.version(forKey: Self.key))
        _ = try await second.read()
        let (moved, _) = try await first.update { Self.signedIn($0) }
        // `second` holds the older version: its write is refused, and the transform runs on what came back.
        let replacesBefore = store.replaces.load(ordering: .relaxed)
        var seen: [UInt64] = []
        let (last, changed) = try await second.update { stored in
            seen.append(stored.generation)
            return Self.signedIn(stored)
        }
        #expect(changed && seen == [1, moved.generation] && last.generation == moved.generation + 1)
        #expect(store.replaces.load(ordering: .relaxed) - replacesBefore == 2)
        #expect(store.updates.load(ordering: .relaxed) == 0, "a versioned store is never written with a plain update")
    }

    @Test("a transform that declines on a record held but not confirmed is asked again about the stored one")
    func declineIsConfirmed() async throws {
        let store = MemoryVersionedStore()
        let (first, second) = (Self.coordinator(store), Self.coordinator(store))
        _ = try await first.update { Self.signedIn($0) }
        _ = try await second.read()
        let (stored, _) = try await first.update { Self.signedIn($0) }
        // `second` declines on generation 1 (held), then on the record read for it: generation 2.
        var asked: [UInt64] = []
        let (record, changed) = try await second.update { current in
            asked.append(current.generation)
            return nil
        }
        #expect(!changed && asked == [1, stored.generation] && record.generation == stored.generation)
        // While the directory follows announcements, what is held is as new as the store's: no read.
        let fleet = DirectoryFleet(metrics: DirectoryMetrics(factory: TestMetrics()))
        fleet.listening.set(true)
        let following = Self.coordinator(store, fleet: fleet)
        _ = try await following.read()
        asked = []
        _ = try await following.update { current in
            asked.append(current.generation)
            return nil
        }
        #expect(asked == [stored.generation])
    }

    @Test("endless refusals end in a retryable error after a bounded number of writes, none of them plain")
    func boundedRefusals() async throws {
        let store = MemoryVersionedStore()
        let coordinator = Self.coordinator(store)
        _ = try await coordinator.update { Self.signedIn($0) }
        store.refuseAll.store(true, ordering: .relaxed)
        let before = store.replaces.load(ordering: .relaxed)
        let error = await #expect(throws: SessionKitError.self) {
            try await coordinator.update { Self.signedIn($0) }
        }
        #expect(error?.code == .storeUnavailable && error?.isRetryable == true)
        #expect(store.replaces.load(ordering: .relaxed) - before == VersionedStoreCoordinator.maximumRefusals)
        #expect(store.updates.load(ordering: .relaxed) == 0)
    }

    @Test("a due session is leased by its first reader; another reader waits for a newer version or a lapsed lease")
    func leasedByRead() async throws {
        let store = MemoryVersionedStore()
        let (first, second) = (Self.coordinator(store), Self.coordinator(store))
        var expiring = Self.credentials
        expiring.expiresAt = Date().addingTimeInterval(30)
        let (written, _) = try await first.update { Self.signedIn($0, expiring) }
        let now = Date()
        guard
            case .leased(let leased) = try await first.readLeasingIfDue(
                dueBy: now.addingTimeInterval(60), owner: "first", until: now.addingTimeInterval(30))
        else {
            Issue.record("the first reader of a due session did not lease it")
            return
        }
        #expect(leased.renewal?.owner == "first" && leased.generation == written.generation)
        guard
            case .heldElsewhere(let endsWait) = try await second.readLeasingIfDue(
                dueBy: now.addingTimeInterval(60), owner: "second", until: now.addingTimeInterval(30))
        else {
            Issue.record("a second reader did not find the lease held elsewhere")
            return
        }
        let version = try #require(leased.storeVersion)
        var same = leased
        #expect(!endsWait(same, now), "the same version, its lease live")
        #expect(endsWait(same, now.addingTimeInterval(31)), "the same version, its lease lapsed")
        same.storeVersion = version + 1
        #expect(endsWait(same, now), "a newer version")
        same.storeVersion = nil
        #expect(!endsWait(same, now.addingTimeInterval(31)), "a record no version vouches for")
        // Not due: read as it is, no lease.
        guard
            case .read = try await second.readLeasingIfDue(
                dueBy: now, owner: "second", until: now.addingTimeInterval(30))
        else {
            Issue.record("a session that is not due was leased")
            return
        }
    }

    @Test("an announced record is taken only when it moves a version the coordinator knows forward")
    func announcementsForwardOnly() async throws {
        let store = MemoryVersionedStore()
        let (writer, reader) = (Self.coordinator(store), Self.coordinator(store))
        _ = try await writer.update { Self.signedIn($0) }
        let signedIn = try await store.versionedData(forKey: Self.key)
        _ = try await reader.read()
        _ = try await writer.update { stored in
            var next = stored.cleared()
            next.generation = stored.generation + 1
            return next
        }
        let cleared = try await store.versionedData(forKey: Self.key)
        // Forward: taken, with nothing read, and news for a waiting call.
        #expect(reader.takeAnnounced(cleared))
        #expect(reader.knownRecord()?.credentials == nil && reader.knownRecord()?.storeVersion == cleared.version)
        // A replay of the sign-in: ignored, whatever is held, and no news.
        #expect(!reader.takeAnnounced(signedIn))
        #expect(reader.knownRecord()?.credentials == nil)
        reader.held.drop()
        #expect(!reader.takeAnnounced(signedIn))
        #expect(reader.knownRecord() == nil)
        // A coordinator that knows no version takes nothing: it drops what it holds, and the next call reads. What
        // was announced waits for that read to vouch for it: a replay of an older write is then dropped.
        let fresh = Self.coordinator(store)
        #expect(!fresh.takeAnnounced(VersionedItem(data: signedIn.data, version: cleared.version + 1)))
        #expect(fresh.knownRecord() == nil)
        let late = Self.coordinator(store)
        #expect(!late.takeAnnounced(signedIn))
        #expect(late.knownRecord() == nil)
        _ = try await late.read()
        #expect(late.knownRecord()?.credentials == nil, "a replay kept aside was taken once a version was known")
        #expect(late.versions.withLock { $0.unvouched } == nil)
        // An item that cannot be read drops what is held.
        _ = try await reader.read()
        #expect(reader.takeAnnounced(VersionedItem(data: Data("not a record".utf8), version: cleared.version + 5)))
        #expect(reader.knownRecord() == nil)
    }

    @Test("a read that crosses an announcement keeps the newer record")
    func newestIsKept() async throws {
        let store = MemoryVersionedStore()
        let coordinator = Self.coordinator(store)
        let (older, _) = try await coordinator.update { Self.signedIn($0) }
        var newer = Self.signedIn(older)
        newer.storeVersion = (older.storeVersion ?? 0) + 1
        coordinator.held.withLock { $0 = newer }
        #expect(coordinator.holdNewest(older).generation == newer.generation)
        #expect(coordinator.knownRecord()?.generation == newer.generation)
    }

    @Test("the fleet's hooks: announcements followed, pauses only while contended and followed, renewals counted")
    func fleetHooks() async throws {
        let metrics = TestMetrics()
        let fleet = DirectoryFleet(metrics: DirectoryMetrics(factory: metrics))
        let coordinator = Self.coordinator(MemoryVersionedStore(), fleet: fleet)
        #expect(!coordinator.followsAnnouncements && coordinator.pauseBeforeLease() == nil)
        for _ in 0..<ChangeListening.contendedAt { coordinator.leaseRefused() }
        #expect(coordinator.pauseBeforeLease() == nil, "no pause while announcements are not followed")
        fleet.listening.set(true)
        #expect(coordinator.followsAnnouncements)
        let pause = try #require(coordinator.pauseBeforeLease())
        #expect(pause <= ChangeListening.pauseLimit)
        coordinator.renewalEnded(.renewed)
        coordinator.renewalEnded(.failed(SessionKitError(code: .signInRequired, message: "ended")))
        #expect(try metrics.expectCounter("sessionkit_renewals_total").totalValue == 1)
        #expect(try metrics.expectCounter("sessionkit_sessions_ended_total").totalValue == 1)
        // Without a fleet (a manager made on its own), nothing is followed, paused or counted.
        let alone = Self.coordinator(MemoryVersionedStore())
        for _ in 0..<ChangeListening.contendedAt { alone.leaseRefused() }
        #expect(!alone.followsAnnouncements && alone.pauseBeforeLease() == nil)
    }
}
