import Foundation
import Logging
import PostgresNIO
import SecureStore
import ServiceLifecycle
import SessionKitPostgresTestSupport
import Testing

@testable import SessionKitPostgres

@Suite("PostgresSessionStore.Migrations as a service", .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote))
struct MigrationServiceTests {
    /// Runs `body` with the application's client whose unqualified tables live in a schema of the test's own, new
    /// and empty (a database without the store's tables), dropped afterwards.
    static func withFreshSchema(
        _ body: (PostgresClient, PostgresConnection.Configuration) async throws -> Void
    ) async throws {
        let schema = "sessionkit_fresh_\(UUID().uuidString.prefix(8).lowercased())"
        try await ApplicationClient.with { client, _ in
            _ = try await ApplicationClient.rows(client, "CREATE SCHEMA \(unescaped: schema)")
        }
        var failure: (any Error)?
        do {
            try await ApplicationClient.with(searchPath: schema, body)
        } catch {
            failure = error
        }
        try await ApplicationClient.with { client, _ in
            _ = try await ApplicationClient.rows(client, "DROP SCHEMA \(unescaped: schema) CASCADE")
        }
        if let failure { throw failure }
    }

    @Test("The service applies every migration once, a second run finds none, and a store works after ready()")
    func appliesOnce() async throws {
        try await Self.withFreshSchema { client, listener in
            let migrations = PostgresSessionStore.Migrations(client: client)
            let group = ServiceGroup(services: [migrations], logger: ApplicationClient.quiet)
            let ended = Latch()
            let running = Task {
                try await group.run()
                ended.set()
            }
            let all = Migration.all.map(\.version)
            #expect(try await migrations.ready() == all)
            #expect(try await migrations.ready() == all, "ready() answers every caller, and again")
            let recorded = try await ApplicationClient.rows(
                client, "SELECT version FROM sessionkit_schema_migrations ORDER BY version"
            ).map { try $0.decode(Int.self) }
            #expect(recorded == all)

            let again = PostgresSessionStore.Migrations(client: client)
            let second = Task { try await again.run() }
            #expect(try await again.ready() == [], "the schema is up to date: nothing applied")
            second.cancel()
            try await second.value

            let store = try ApplicationClient.store(client, listener)
            try await store.setString("after", forKey: "k")
            #expect(try await store.string(forKey: "k") == "after")
            #expect(try await store.migrate() == [])
            let throughStore = PostgresSessionStore.Migrations(store: store)
            let third = Task { try await throughStore.run() }
            #expect(try await throughStore.ready() == [])
            third.cancel()
            try await third.value

            #expect(!ended.isSet, "the service stays until the group shuts down")
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    @Test("Services that wait for ready() start once the tables are there")
    func servicesWaitForReady() async throws {
        try await Self.withFreshSchema { client, listener in
            let migrations = PostgresSessionStore.Migrations(client: client)
            let store = try ApplicationClient.store(client, listener)
            // Listed before the migrations, so started first: it waits for them.
            let writer = Writer(migrations: migrations, store: store)
            let group = ServiceGroup(services: [writer, migrations], logger: ApplicationClient.quiet)
            let running = Task { try await group.run() }
            let deadline = ContinuousClock.now + .seconds(30)
            while !writer.wrote.isSet, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(writer.wrote.isSet)
            #expect(try await store.string(forKey: "k") == "written once ready")
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    @Test("A service that cannot reach the database fails, and so does ready(); the group ends with the error")
    func unreachable() async throws {
        var settings = try PostgresSessionStore.Configuration(url: "postgres://sessionkit@127.0.0.1:1/sessionkit_test")
        settings.connectTimeout = .milliseconds(500)
        let client = PostgresClient(configuration: try settings.clientConfiguration())
        let migrations = PostgresSessionStore.Migrations(client: client, timeout: .seconds(2))
        let group = ServiceGroup(services: [client, migrations], logger: ApplicationClient.quiet)
        let running = Task { try await group.run() }
        let waiting = await storeError { () async throws -> Void in try await migrations.ready() }
        #expect(waiting?.code == .unavailable)
        let ended = await storeError { () async throws -> Void in try await running.value }
        #expect(ended?.code == .unavailable, "the group ends with the migrations' error")
    }
}

/// A service of the application's that needs the store's tables: it waits for the migrations, writes once, and
/// stays until the shutdown.
private final class Writer: Service, Sendable {
    let migrations: PostgresSessionStore.Migrations
    let store: PostgresSessionStore
    let wrote = Latch()

    init(migrations: PostgresSessionStore.Migrations, store: PostgresSessionStore) {
        self.migrations = migrations
        self.store = store
    }

    func run() async throws {
        try await migrations.ready()
        try await store.setString("written once ready", forKey: "k")
        wrote.set()
        try? await gracefulShutdown()
    }
}
