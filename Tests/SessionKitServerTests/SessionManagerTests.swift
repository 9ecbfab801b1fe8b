import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import SessionKitPostgresTestSupport
import SessionKitTesting
import Testing

@testable import SessionKitPostgres
@testable import SessionKitServer

/// `SessionManager` over the PostgreSQL store, made with SessionKitServer's initialiser for a versioned store: its
/// renewal lease lives in the row beside the record, taken by the read that finds the session due and kept by
/// conditional writes (`VersionedStoreCoordinator`), so managers on separate store instances (separate servers) renew
/// once between them.
@Suite("SessionManager over PostgresSessionStore", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct SessionManagerTests {
    @Test("Two managers on separate store instances renew an expired session exactly once")
    func singleFlightAcrossInstances() async throws {
        try await LiveEmulator.with { emulator in
            let service = "tests.manager.\(UUID().uuidString)"
            let time = TestClock()
            let configuration = try emulator.providerConfiguration()
            func manager() async throws -> SessionManager {
                SessionManager(
                    provider: ProviderClient(configuration: configuration, clock: time.clock),
                    store: try await TestPostgres.store(service: service),
                    account: "alice",
                    clock: time.clock
                )
            }
            let first = try await manager()
            let second = try await manager()
            let credentials = try await first.provider.signIn(
                username: AuthEmulator.User.aliceEmail,
                password: Secret(AuthEmulator.User.alicePassword)
            )
            try await first.store(credentials)
            time.advance(by: (credentials.expiresAt ?? Date()).timeIntervalSinceNow + 1)
            try await emulator.controls.inject(AuthEmulator.Fault.latency(0.5).only(.refreshToken), into: .token)
            try await emulator.controls.resetRequestCounts()
            let results = try await withThrowingTaskGroup(of: Credentials.self) { group in
                for manager in [first, second, first, second] {
                    group.addTask { try await manager.credentials() }
                }
                return try await group.reduce(into: [Credentials]()) { $0.append($1) }
            }
            #expect(Set(results.map(\.accessToken)).count == 1)
            #expect(results.allSatisfy { $0.accessToken != credentials.accessToken })
            #expect(try await emulator.controls.requestCounts()[.refreshToken] == 1)
            // A third instance, started afterwards, reads the renewed session from the database.
            #expect(try await manager().storedCredentials() == results[0])
            _ = try await first.logout()
            #expect(try await manager().hasSession() == false)
        }
    }

    @Test("An announced record is taken only when it moves a version the manager read forward: replays are ignored")
    func announcedRecordsAreTakenOnlyForward() async throws {
        try await LiveEmulator.with { emulator in
            let service = "tests.announced-manager.\(UUID().uuidString)"
            let store = try await TestPostgres.store(service: service)
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            func manager() -> SessionManager { SessionManager(provider: provider, store: store, account: "alice") }
            let writer = manager()
            let reader = manager()
            let credentials = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            try await writer.store(credentials)
            // What the store announced for the sign-in, as anyone listening on the channel can record it.
            let signedIn = try await store.versionedData(forKey: writer.storeKey)
            #expect(try await reader.credentials() == credentials)
            _ = try await writer.logout(revoke: false)

            // The reader drops its copy (a bare "read it" announcement), then the sign-in is replayed: ignored.
            reader.storeDidChange()
            reader.storeDidChange(to: signedIn)
            #expect(try await reader.hasSession() == false, "a replayed announcement revived the session")
            // Once more, with the cleared record held: still ignored.
            reader.storeDidChange(to: signedIn)
            #expect(try await reader.hasSession() == false)
            // A manager that has read nothing yet never takes an announced record: it reads the store.
            let fresh = manager()
            fresh.storeDidChange(to: signedIn)
            #expect(try await fresh.hasSession() == false)

            // A record that moves the version forward is taken without a read: here one the store does not hold.
            let cleared = try await store.versionedData(forKey: writer.storeKey)
            let ahead = VersionedItem(data: signedIn.data, version: cleared.version + 1)
            reader.storeDidChange(to: ahead)
            #expect(try await reader.storedCredentials() == credentials, "a forward announcement was not taken")
        }
    }
}
