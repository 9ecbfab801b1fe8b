import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitPostgres
import SessionKitServer
import SessionKitTesting
import Testing

/// Many users' sessions by session id, over a store shared by several "instances" (directories with their
/// own provider clients and caches). Here over the encrypted file store; `PostgresDirectoryTests` does the
/// same over PostgreSQL.
@Suite("SessionDirectory: sessions by id, renewed once across instances, bounded memory")
struct SessionDirectoryTests {
    /// A directory for the emulator's native client over `store`, as one server instance has it.
    static func instance(
        _ emulator: AuthEmulator, _ store: any SecureStore, time: TestClock, capacity: Int = 10_000
    ) throws -> SessionDirectory {
        let provider = ProviderClient(configuration: try emulator.providerConfiguration(), clock: time.clock)
        return SessionDirectory(provider: provider, store: store, capacity: capacity, clock: time.clock)
    }

    /// Two instances over one encrypted-file store in a temporary folder (removed after `body`), on one clock.
    static func withTwoInstances(
        _ emulator: AuthEmulator,
        _ body: (SessionDirectory, SessionDirectory, TestClock) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder(prefix: "sessionkit-directory").url
        defer { try? FileManager.default.removeItem(at: folder) }
        let time = TestClock()
        let first = try instance(emulator, try LiveSession.makeStore(folder), time: time)
        let second = try instance(emulator, try LiveSession.makeStore(folder), time: time)
        try await body(first, second, time)
    }

    static func signIn(_ emulator: AuthEmulator) async throws -> Credentials {
        try await ProviderClient(configuration: try emulator.providerConfiguration())
            .signIn(username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
    }

    @Test("an expired session asked for by 2 instances x 10 callers is renewed once; every caller gets the token")
    func renewedOnceAcrossInstances() async throws {
        try await LiveEmulator.with { emulator in
            let folder = try TemporaryFolder(prefix: "sessionkit-directory").url
            defer { try? FileManager.default.removeItem(at: folder) }
            let time = TestClock()
            let instances = [
                try Self.instance(emulator, try LiveSession.makeStore(folder), time: time),
                try Self.instance(emulator, try LiveSession.makeStore(folder), time: time),
            ]
            let signedIn = try await Self.signIn(emulator)
            let id = try await instances[0].create(signedIn)
            #expect(try await instances[1].credentials(for: id) == signedIn)
            time.advance(by: (signedIn.expiresAt ?? Date()).timeIntervalSinceNow + 1)
            try await emulator.controls.resetRequestCounts()
            let tokens = try await withThrowingTaskGroup(of: Secret.self) { group in
                for index in 0..<20 {
                    group.addTask { try await instances[index % 2].credentials(for: id, minTTL: 60).accessToken }
                }
                return try await group.reduce(into: Set<Secret>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1 && !tokens.contains(signedIn.accessToken))
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
        }
    }

    @Test("localCredentials answers from memory only: nil for an unknown, uncached, expiring or evicted session")
    func localCredentialsFromMemoryOnly() async throws {
        try await LiveEmulator.with { emulator in
            try await Self.withTwoInstances(emulator) { first, second, time in
                let signedIn = try await Self.signIn(emulator)
                let id = try await first.create(signedIn)
                #expect(first.localCredentials(for: id) == signedIn)
                #expect(first.localCredentials(for: SessionID()) == nil, "an unknown id")
                #expect(second.localCredentials(for: id) == nil, "stored, but not in this instance's memory")
                #expect(second.cachedCount == 0, "and asking did not admit it")
                let lifetime = (signedIn.expiresAt ?? Date()).timeIntervalSinceNow
                time.advance(by: lifetime - 30)
                #expect(first.localCredentials(for: id, minTTL: 60) == nil, "expires within minTTL")
                #expect(first.localCredentials(for: id) == signedIn, "still valid")
                time.advance(by: 31)
                #expect(first.localCredentials(for: id) == nil, "expired")
                #expect(first.evict { $0.hasSuffix(id.account) } == 1)
                #expect(first.localCredentials(for: id) == nil, "evicted")
            }
        }
    }

    @Test("a logout on one instance: the other stops serving the session once it hears of the change")
    func logoutSeenElsewhere() async throws {
        try await LiveEmulator.with { emulator in
            try await Self.withTwoInstances(emulator) { first, second, _ in
                let id = try await first.create(try await Self.signIn(emulator))
                _ = try await second.credentials(for: id)
                let result = try await first.logout(id)
                #expect(result.hadSession && result.revoked)
                // The second instance still holds the valid token in memory until told (PostgreSQL tells it).
                #expect(second.evict { $0.hasSuffix(id.account) } == 1)
                await #expect(throws: SessionKitError.self) { _ = try await second.credentials(for: id) }
                do {
                    _ = try await second.credentials(for: id)
                } catch let error as SessionKitError {
                    #expect(error.code == .signInRequired)
                }
            }
        }
    }

    @Test("memory is bounded: beyond the capacity the least recently used are dropped, and read again on use")
    func boundedMemory() async throws {
        try await LiveEmulator.with { emulator in
            let folder = try TemporaryFolder(prefix: "sessionkit-directory").url
            defer { try? FileManager.default.removeItem(at: folder) }
            let directory = try Self.instance(
                emulator, try LiveSession.makeStore(folder), time: TestClock(), capacity: 8)
            let signedIn = try await Self.signIn(emulator)
            var ids: [SessionID] = []
            for _ in 0..<30 { ids.append(try await directory.create(signedIn)) }
            #expect(directory.cachedCount <= 8)
            for id in ids { #expect(try await directory.credentials(for: id) == signedIn) }
            #expect(directory.cachedCount <= 8)
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 0)
        }
    }

    @Test("session ids: 256 random bits, checked when they come back, never shown or stored whole")
    func sessionIDs() async throws {
        let id = SessionID()
        #expect(id.rawValue.count == 43 && id != SessionID())
        #expect(try SessionID(validating: id.rawValue) == id)
        #expect(!id.description.contains(id.rawValue) && !id.account.contains(id.rawValue))
        for bad in [
            "", "short", id.rawValue + "x", String(id.rawValue.dropLast()) + "=", "../" + id.rawValue.dropFirst(3),
        ] {
            #expect(throws: SessionKitError.self) { try SessionID(validating: bad) }
        }
    }

    @Test("an unknown session id: signInRequired, nothing created")
    func unknownSession() async throws {
        try await LiveEmulator.with { emulator in
            let folder = try TemporaryFolder(prefix: "sessionkit-directory").url
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = try LiveSession.makeStore(folder)
            let directory = try Self.instance(emulator, store, time: TestClock())
            do {
                _ = try await directory.credentials(for: SessionID())
                Issue.record("an unknown session served credentials")
            } catch let error as SessionKitError {
                #expect(error.code == .signInRequired)
            }
            #expect(try store.keys().isEmpty)
        }
    }
}
