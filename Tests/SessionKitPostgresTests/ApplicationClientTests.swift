import Foundation
import Logging
import PostgresNIO
import SecureStore
import ServiceLifecycle
import SessionKitPostgresTestSupport
import Testing

@testable import SessionKitPostgres

@Suite(
    "PostgresSessionStore over the application's PostgresClient",
    .enabled(if: TestPostgres.shouldRun, TestPostgres.skipNote)
)
struct ApplicationClientTests {
    @Test("Reads, writes, updates and deletes through the application's client; other instances hear of each change")
    func readsWritesAndAnnounces() async throws {
        try await TestPostgres.migrate()
        let service = "tests.app.\(UUID().uuidString)"
        // Another instance, with a pool of its own, as every store was before the application could share its own.
        let elsewhere = try await TestPostgres.store(service: service)
        try await ApplicationClient.with { client, listener in
            let store = try ApplicationClient.store(client, listener, service: service)
            let theirs = try await elsewhere.changes()
            let own = try await store.changes()
            #expect(try await store.data(forKey: "s") == nil)
            try await store.setString("one", forKey: "s")
            #expect(try await store.string(forKey: "s") == "one")
            try await store.update(forKey: "s") { _ in Data("two".utf8) }
            #expect(try await elsewhere.string(forKey: "s") == "two")
            let read = try await store.versionedData(forKey: "s")
            let written = try await store.replace(
                forKey: "s", ifVersion: read.version, with: Data("three".utf8), dueAt: nil)
            guard case .written(let version) = written else {
                Issue.record("the conditional write was refused: \(written)")
                return
            }
            #expect(try await store.keys() == ["s"])
            try await elsewhere.setString("four", forKey: "s")
            try await store.deleteItem(forKey: "s")
            #expect(try await store.data(forKey: "s") == nil)
            let heard = try await ChangesTests.first(5, of: theirs)
            #expect(heard.count == 5)
            guard heard.count == 5 else { return }
            #expect(heard.allSatisfy { $0.affects(key: "s") })
            #expect(heard.map(\.isOwnWrite) == [false, false, false, true, false], "only its own write is its own")
            #expect(heard[2].item == VersionedItem(data: Data("three".utf8), version: version), "sealed whole")
            let mine = try await ChangesTests.first(5, of: own)
            #expect(mine.map(\.isOwnWrite) == [true, true, true, false, true], "the other instance's write is not")
            #expect(!"\(store)".contains(try #require(try TestPostgres.configuration().password)))
        }
    }

    @Test("Two stores share one client of two connections, each with its own service, under concurrent calls")
    func twoStoresShareOneClient() async throws {
        try await TestPostgres.migrate()
        try await ApplicationClient.with(maximumConnections: 2) { client, listener in
            let serviceA = "tests.app.a.\(UUID().uuidString)"
            let a = try ApplicationClient.store(client, listener, service: serviceA)
            let b = try ApplicationClient.store(client, listener, service: "tests.app.b.\(UUID().uuidString)")
            let alsoA = try ApplicationClient.store(client, listener, service: serviceA)
            let changes = try await alsoA.changes()
            try await a.setString("from a", forKey: "k")
            try await b.setString("from b", forKey: "k")
            #expect(try await alsoA.string(forKey: "k") == "from a")
            #expect(try await b.string(forKey: "k") == "from b")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    let store = index.isMultiple(of: 2) ? a : b
                    group.addTask { try await store.setString("\(index)", forKey: "k\(index)") }
                }
                try await group.waitForAll()
            }
            #expect(try await a.keys().count == 21)
            #expect(try await b.keys().count == 21)
            let heard = try await ChangesTests.first(21, of: changes)
            #expect(heard.count == 21, "every write of service A, and none of B's")
            #expect(heard.allSatisfy { !$0.isOwnWrite })
            try await a.deleteAll()
            try await b.deleteAll()
        }
    }

    @Test("Deadlines over the application's client: a busy pool is named, and a connection given up on is replaced")
    func deadlinesOverTheClient() async throws {
        try await TestPostgres.migrate()
        try await ApplicationClient.with(maximumConnections: 1) { client, listener in
            let store = try PostgresSessionStore(
                service: "tests.app.\(UUID().uuidString)", client: client, listener: listener,
                keys: TestPostgres.keys(), callTimeout: .seconds(2), acquireTimeout: .milliseconds(300))
            // The application's own query holds the client's only connection past the store call's deadline.
            let busy = Task { try await ApplicationClient.rows(client, "SELECT pg_sleep(4)") }
            try await Task.sleep(for: .milliseconds(300))
            let error = await storeError { _ = try await store.data(forKey: "k") }
            #expect(error?.code == .unavailable)
            #expect(error?.message.contains("the application's client") == true, "\(String(describing: error))")
            #expect(try await busy.value.count == 1, "the application's query was left alone")
            // A statement the store gives up on at its deadline: its connection is closed and goes back to the pool
            // only then (over TLS, the server busy with the statement delays the close), so that the application's
            // query that waited for it is not lent the closing connection: the pool opens another for it.
            let hung = await storeError { _ = try await store.raw("SELECT pg_sleep(30)", within: .seconds(1)) }
            #expect(hung?.code == .unavailable)
            #expect(try await ApplicationClient.rows(client, "SELECT 1").count == 1)
            #expect(try await store.data(forKey: "k") == nil)
        }
    }

    @Test("The store never shuts the application's client down: its run() only waits for the shutdown")
    func leavesTheClientRunning() async throws {
        try await TestPostgres.migrate()
        try await ApplicationClient.with { client, listener in
            let store = try ApplicationClient.store(client, listener)
            // In a service group of its own, shut down gracefully; then in a task of its own, cancelled.
            let group = ServiceGroup(services: [store], logger: ApplicationClient.quiet)
            let ended = Latch()
            let running = Task {
                try await group.run()
                ended.set()
            }
            try await store.setString("x", forKey: "k")
            try await Task.sleep(for: .milliseconds(100))
            #expect(!ended.isSet, "run() returned at once, which would end an application's group")
            await group.triggerGracefulShutdown()
            try await running.value
            let alone = Task { try await store.run() }
            alone.cancel()
            try await alone.value
            // The client still serves the store and the application's own queries.
            #expect(try await store.string(forKey: "k") == "x")
            #expect(try await ApplicationClient.rows(client, "SELECT 1").count == 1)
            try await store.deleteAll()
        }
    }

}

@Suite("PostgresSessionStore over an application's client, without a database")
struct ApplicationClientSettingsTests {
    @Test("A store over the application's client describes the listener's database, without its password")
    func describesTheListenersDatabase() async throws {
        var listener = PostgresConnection.Configuration(
            host: "db.internal", port: 6543, username: "app", password: "hunter2-secret", database: "sessions",
            tls: .disable)
        listener.options.connectTimeout = .seconds(7)
        let client = PostgresClient(
            configuration: .init(host: "db.internal", username: "app", password: nil, database: nil, tls: .disable))
        let store = try PostgresSessionStore(
            service: "web", client: client, listener: listener, keys: TestPostgres.keys(), callTimeout: .seconds(9),
            acquireTimeout: .seconds(2))
        #expect(
            "\(store)"
                == "PostgresSessionStore(service: web, database: postgres://app:<REDACTED>@db.internal:6543/sessions?sslmode=disable)"
        )
        #expect(!"\(store)".contains("hunter2"), "the password is never printed")
        #expect(store.configuration.connectTimeout == .seconds(7))
        #expect(store.configuration.callTimeout == .seconds(9))
        #expect(store.configuration.acquireTimeout == .seconds(2))
        #expect(store.ownsClient == false)
        #expect(
            await storeError {
                _ = try PostgresSessionStore(service: "", client: client, listener: listener, keys: TestPostgres.keys())
            }?.code == .invalidArgument)
    }
}
