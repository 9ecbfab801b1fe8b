import AuthEmulator
import Foundation
import PostgresNIO
import SecureStore
import SessionKit
import SessionKitPostgresTestSupport
import SessionKitTesting
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

/// `SessionDirectory` over PostgreSQL, as several server instances would run it: each instance its own store
/// (connection pool), provider client and cache, following the database's change announcements.
@Suite("SessionDirectory over PostgreSQL", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct PostgresDirectoryTests {
    /// One instance: its own store and directory, following the store's changes.
    struct Instance {
        let store: PostgresSessionStore
        let directory: SessionDirectory
        let follower: Task<Void, Never>
    }

    /// Runs `body` with the emulator, a test clock, two instances of one service that follow the store's changes
    /// (and are listening), and a user's credentials from a sign-in.
    static func withTwoInstances(
        _ body: (AuthEmulator, TestClock, Instance, Instance, Credentials) async throws -> Void
    ) async throws {
        try await LiveEmulator.with { emulator in
            let service = "tests.directory.\(UUID().uuidString)"
            let time = TestClock()
            let (a, b) = (
                try await Self.instance(emulator, service: service, time: time),
                try await Self.instance(emulator, service: service, time: time)
            )
            defer { for instance in [a, b] { instance.follower.cancel() } }
            try await Self.untilListening([a, b])
            let credentials = try await ProviderClient(configuration: try emulator.providerConfiguration())
                .signIn(username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            try await body(emulator, time, a, b, credentials)
        }
    }

    /// Returns once every instance's follower is listening (a waiter polls the store until its instance is: the
    /// statement counts below assume it listens), or fails after 10 s.
    static func untilListening(_ instances: [Instance]) async throws {
        let started = ContinuousClock.now
        while !instances.allSatisfy(\.directory.isFollowingChanges) {
            try #require(ContinuousClock.now - started < .seconds(10), "the followers never started listening")
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    static func instance(_ emulator: AuthEmulator, service: String, time: TestClock) async throws -> Instance {
        let store = try await TestPostgres.store(service: service)
        let provider = ProviderClient(configuration: try emulator.providerConfiguration(), clock: time.clock)
        let directory = SessionDirectory(provider: provider, store: store, clock: time.clock)
        return Instance(
            store: store, directory: directory,
            follower: Task { await directory.follow(store, retryDelay: .milliseconds(100)) })
    }

    @Test("a logout on one instance: the others refuse the session within a second, with no request of theirs")
    func logoutSeenWithinASecond() async throws {
        try await LiveEmulator.with { emulator in
            let service = "tests.directory.\(UUID().uuidString)"
            let time = TestClock()
            var instances: [Instance] = []
            for _ in 0..<3 { instances.append(try await Self.instance(emulator, service: service, time: time)) }
            defer { for instance in instances { instance.follower.cancel() } }
            try await Self.untilListening(instances)
            let credentials = try await ProviderClient(configuration: try emulator.providerConfiguration())
                .signIn(username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            let id = try await instances[0].directory.create(credentials)
            for instance in instances.dropFirst() {
                #expect(try await instance.directory.credentials(for: id) == credentials)
            }
            let loggedOut = ContinuousClock.now
            try await instances[0].directory.logout(id)
            for instance in instances.dropFirst() {
                var refused = false
                while ContinuousClock.now - loggedOut < .seconds(1) {
                    do {
                        _ = try await instance.directory.credentials(for: id)
                        try await Task.sleep(for: .milliseconds(20))
                    } catch let error as SessionKitError {
                        #expect(error.code == .signInRequired)
                        refused = true
                        break
                    }
                }
                #expect(refused, "an instance still served the session a second after the logout")
            }
        }
    }

    /// Runs `body` with the emulator, a test clock, an instance that creates sessions (and does not follow
    /// changes), and `count` more instances of its service that follow them (and are listening).
    static func withFleet(
        _ count: Int, _ body: (AuthEmulator, TestClock, Instance, [Instance]) async throws -> Void
    ) async throws {
        try await LiveEmulator.with { emulator in
            let service = "tests.directory.\(UUID().uuidString)"
            let time = TestClock()
            let creator = try await Self.instance(emulator, service: service, time: time)
            creator.follower.cancel()
            var instances: [Instance] = []
            for _ in 0..<count { instances.append(try await Self.instance(emulator, service: service, time: time)) }
            defer { for instance in instances { instance.follower.cancel() } }
            try await Self.untilListening(instances)
            try await body(emulator, time, creator, instances)
        }
    }

    /// Signs a user in, creates the session on `creator`, and moves `time` past the access token's expiry; from
    /// then on the emulator counts refresh grants from zero and answers each after `latency` seconds.
    static func expiredSession(
        _ emulator: AuthEmulator, on creator: Instance, time: TestClock, latency: TimeInterval
    ) async throws -> (id: SessionID, credentials: Credentials) {
        let credentials = try await ProviderClient(configuration: try emulator.providerConfiguration())
            .signIn(username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
        let id = try await creator.directory.create(credentials)
        time.advance(by: (credentials.expiresAt ?? Date()).timeIntervalSinceNow + 1)
        try await emulator.controls.resetRequestCounts()
        try await emulator.controls.inject(AuthEmulator.Fault.latency(latency).only(.refreshToken), into: .token)
        return (id, credentials)
    }

    /// `callers` calls at once for the session's token, taken in turn from `instances`: the distinct tokens given.
    static func askAtOnce(_ instances: [Instance], for id: SessionID, callers: Int) async throws -> Set<Secret> {
        try await withThrowingTaskGroup(of: Secret.self) { group in
            for index in 0..<callers {
                let directory = instances[index % instances.count].directory
                group.addTask { try await directory.credentials(for: id, minTTL: 60).accessToken }
            }
            return try await group.reduce(into: Set<Secret>()) { $0.insert($1) }
        }
    }

    @Test("an expired session asked for on 3 instances by 30 callers is renewed once, and all get the token")
    func renewedOnce() async throws {
        try await LiveEmulator.with { emulator in
            let service = "tests.directory.\(UUID().uuidString)"
            let time = TestClock()
            var instances: [Instance] = []
            for _ in 0..<3 { instances.append(try await Self.instance(emulator, service: service, time: time)) }
            defer { for instance in instances { instance.follower.cancel() } }
            let (id, credentials) = try await Self.expiredSession(emulator, on: instances[0], time: time, latency: 0.3)
            let tokens = try await Self.askAtOnce(instances, for: id, callers: 30)
            #expect(tokens.count == 1 && !tokens.contains(credentials.accessToken))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
        }
    }

    /// A read that meets the row held by another instance's read at that instant goes into the next batch, and
    /// then alone if the row is held still: at most two more statements.
    @Test("4 instances meet an expired session at once: one statement each, the commit, and one refresh")
    func firstCallsLeaseAsTheyRead() async throws {
        try await Self.withFleet(4) { emulator, time, creator, instances in
            let (id, credentials) = try await Self.expiredSession(emulator, on: creator, time: time, latency: 0.2)
            let before = instances.map(\.store.statementCount)
            let heldBefore = instances.map { $0.store.heldRowReadCount + $0.store.busyRowRetryCount }
            let checksBefore = instances.map(\.store.commitCheckCount)
            let announcedBefore = instances.map(\.store.announcedCommitCount)
            let tokens = try await Self.askAtOnce(instances, for: id, callers: 20)
            #expect(tokens.count == 1 && !tokens.contains(credentials.accessToken))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            let sent = zip(instances, before).map { $0.store.statementCount - $1 }
            let held = zip(instances, heldBefore).map { $0.store.heldRowReadCount + $0.store.busyRowRetryCount - $1 }
            let checks = zip(instances, checksBefore).map { $0.store.commitCheckCount - $1 }.reduce(0, +)
            let announced = zip(instances, announcedBefore).map { $0.store.announcedCommitCount - $1 }.reduce(0, +)
            #expect(held.allSatisfy { $0 <= 2 }, "held rows read again per instance: \(held)")
            let (total, extra) = (sent.reduce(0, +), held.reduce(0, +))
            // The lease taken is confirmed committed by one more statement; the commit by its own announcement,
            // which the instance's listener hears only once PostgreSQL has committed it.
            #expect(checks == 1, "commits confirmed by a statement: \(checks)")
            #expect(announced == 1, "commits confirmed by their announcement: \(announced)")
            #expect(total == 5 + extra + checks, "statements per instance: \(sent), held rows read again: \(held)")
        }
    }

    /// A first call that meets another instance's live lease is not sent the record (it could not use it) and
    /// waits for that instance's write; when none comes and the lease lapses, it renews the session itself.
    @Test("a first call that meets a lease whose holder died: it waits, and once the lease lapses renews the session")
    func leaseHolderDied() async throws {
        try await Self.withTwoInstances { emulator, time, a, b, credentials in
            let id = try await a.directory.create(credentials)
            time.advance(by: (credentials.expiresAt ?? Date()).timeIntervalSinceNow + 1)
            try await emulator.controls.resetRequestCounts()
            // An instance that leased the session as it read it, then stopped: its lease lives 2 s on the
            // instances' clock, and much longer on PostgreSQL's (the test clock runs ahead of it).
            let key = a.directory.manager(for: id).storeKey
            let ghost = ItemLease(owner: "ghost", until: time.clock.now().addingTimeInterval(2))
            let held = try await b.store.leaseIfDue(forKey: key, dueBy: time.clock.now(), lease: ghost)
            #expect(held.outcome == .leased)
            let started = ContinuousClock.now
            let waiting = Task { try await b.directory.credentials(for: id, minTTL: 60) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 0, "no grant under a live lease")
            time.advance(by: 3)
            let renewed = try await waiting.value
            #expect(renewed.accessToken != credentials.accessToken)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            #expect(ContinuousClock.now - started < .seconds(5), "took \(ContinuousClock.now - started)")
            #expect(try await a.directory.credentials(for: id, minTTL: 60) == renewed, "the other instance has it too")
        }
    }

    @Test("a session written before migration 3 (no due time) is renewed once the old way, then leased the new way")
    func writtenBeforeMigration3() async throws {
        try await Self.withFleet(3) { emulator, time, creator, instances in
            let (id, credentials) = try await Self.expiredSession(emulator, on: creator, time: time, latency: 0.2)
            // As every row an earlier SessionKit wrote: no due time.
            let service = creator.store.service
            _ = try await creator.store.raw("UPDATE sessionkit_items SET due_at = NULL WHERE service = \(service)")
            let tokens = try await Self.askAtOnce(instances, for: id, callers: 15)
            #expect(tokens.count == 1 && !tokens.contains(credentials.accessToken))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            // The renewal wrote the due time: the next expiry is met by a first call's lease.
            let fresh = try await Self.instance(emulator, service: service, time: time)
            fresh.follower.cancel()
            let renewed = try await instances[0].directory.credentials(for: id)
            time.advance(by: (renewed.expiresAt ?? Date()).timeIntervalSince(time.clock.now()) + 1)
            let (before, checksBefore) = (fresh.store.statementCount, fresh.store.commitCheckCount)
            #expect(try await fresh.directory.credentials(for: id, minTTL: 60) != renewed)
            #expect(fresh.store.commitCheckCount - checksBefore == 2)
            #expect(
                fresh.store.statementCount - before == 4,
                "the read that leased it and the commit, each with the statement that confirms its commit")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 2)
        }
    }

    @Test("a first call whose minTTL no token outlives leases the session as due, then gives the lease back unused")
    func leaseGivenBack() async throws {
        try await Self.withTwoInstances { emulator, _, a, b, credentials in
            let id = try await a.directory.create(credentials)
            let lifetime = try #require(credentials.expiresAt).timeIntervalSince(credentials.receivedAt)
            try await emulator.controls.resetRequestCounts()
            let (before, checksBefore) = (b.store.statementCount, b.store.commitCheckCount)
            let announcedBefore = b.store.announcedCommitCount
            // As fresh as the provider gives: it serves a minTTL longer than its lifetime (see `satisfies`).
            #expect(try await b.directory.credentials(for: id, minTTL: lifetime + 60) == credentials)
            #expect(b.store.commitCheckCount - checksBefore == 1)
            #expect(b.store.announcedCommitCount - announcedBefore == 1)
            #expect(
                b.store.statementCount - before == 3,
                "the lease read and its confirming statement; the lease given back, confirmed by its announcement")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 0)
            let stored = try await b.store.versionedData(forKey: b.directory.manager(for: id).storeKey)
            #expect(stored.lease == nil, "no lease left to hold other instances back")
        }
    }

    @Test("a renewal on one instance reaches another with its record: a caller waiting there reads nothing")
    func renewalAnnounced() async throws {
        try await Self.withTwoInstances { emulator, time, a, b, credentials in
            let id = try await a.directory.create(credentials)
            #expect(try await b.directory.credentials(for: id) == credentials)
            time.advance(by: (credentials.expiresAt ?? Date()).timeIntervalSinceNow + 1)
            try await emulator.controls.resetRequestCounts()
            try await emulator.controls.inject(AuthEmulator.Fault.latency(0.5).only(.refreshToken), into: .token)
            let renewing = Task { try await a.directory.credentials(for: id, minTTL: 60) }
            // B hears of A's lease: the record B holds now carries it.
            let heard = ContinuousClock.now
            while !b.directory.manager(for: id).heldRecordShowsRenewal {
                guard ContinuousClock.now - heard < .seconds(5) else {
                    Issue.record("B never heard of A's lease")
                    return
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            let before = b.store.statementCount
            let seenByB = try await b.directory.credentials(for: id, minTTL: 60)
            let renewed = try await renewing.value
            #expect(seenByB == renewed && renewed.accessToken != credentials.accessToken)
            #expect(b.store.statementCount == before, "B waited for A's renewal and took its announced record")
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
        }
    }

    @Test("a session another instance created and this one ended is refused here at once, whatever was announced")
    func endedHereStaysEnded() async throws {
        try await Self.withTwoInstances { emulator, time, a, b, credentials in
            let id = try await b.directory.create(credentials)
            try await Task.sleep(for: .milliseconds(300))  // A has heard of it, and holds no manager for it
            #expect(try await a.directory.storedCredentials(for: id) == credentials)
            try await a.directory.logout(id, revoke: false)
            // A kept copy of the record B announced would still hold the tokens (session 10 tried one, and the
            // BFF's sign-in rotation test caught it): A must answer from the store, where the session ended.
            await #expect {
                try await a.directory.credentials(for: id)
            } throws: {
                ($0 as? SessionKitError)?.code == .signInRequired
            }
        }
    }

    @Test("a valid token is served from memory: 1,000 calls for 50 sessions send no statement to the database")
    func noRoundTripWhileValid() async throws {
        try await LiveEmulator.with { emulator in
            let time = TestClock()
            let instance = try await Self.instance(
                emulator, service: "tests.directory.\(UUID().uuidString)", time: time)
            defer { instance.follower.cancel() }
            let credentials = try await ProviderClient(configuration: try emulator.providerConfiguration())
                .signIn(username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            var ids: [SessionID] = []
            for _ in 0..<50 { ids.append(try await instance.directory.create(credentials)) }
            try await Task.sleep(for: .milliseconds(500))  // the announcements of those writes have arrived
            for id in ids { _ = try await instance.directory.credentials(for: id, minTTL: 60) }
            let before = instance.store.statementCount
            for round in 0..<20 {
                for id in ids {
                    #expect(try await instance.directory.credentials(for: id, minTTL: 60) == credentials, "\(round)")
                }
            }
            #expect(instance.store.statementCount == before)
        }
    }
}
