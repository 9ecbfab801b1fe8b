package import Crypto
package import Foundation
package import SecureStore
package import SessionKitPostgres
package import SessionKitTestSupport

/// The PostgreSQL the tests use: `SESSIONKIT_POSTGRES_URL` (scripts/postgres-start.sh prints one).
///
/// Without it the tests are skipped with a note, unless `SESSIONKIT_REQUIRE_POSTGRES=1` (CI), which makes them
/// run and fail.
package enum TestPostgres {
    package static var url: String? { TestPostgresEnvironment.url }
    package static var isRequired: Bool { TestPostgresEnvironment.isRequired }
    package static var shouldRun: Bool { TestPostgresEnvironment.shouldRun }
    package static let skipReason = TestPostgresEnvironment.skipReason

    /// scripts/postgres-restart.sh, for the cluster scripts/postgres-start.sh started in this checkout.
    package static let restartScript = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-restart.sh")

    private static var startedHere: Bool {
        let state = restartScript.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".postgres/dir")
        return FileManager.default.fileExists(atPath: state.path)
    }

    /// Whether the restart test should run: the cluster is this checkout's own, or PostgreSQL is required.
    package static var canRestart: Bool { url != nil && (startedHere || isRequired) }

    package static let restartReason =
        "restarting PostgreSQL needs the cluster of scripts/postgres-start.sh in this checkout"

    /// The restart script, or an error saying why it cannot be used.
    package static func restartCommand() throws -> URL {
        guard startedHere else {
            throw SecureStoreError(
                code: .invalidArgument,
                message: "the database was not started by scripts/postgres-start.sh in this checkout, so it "
                    + "cannot be restarted; start it with `export SESSIONKIT_POSTGRES_URL=$(scripts/postgres-start.sh)`"
            )
        }
        return restartScript
    }

    /// Runs `script` and waits for it (at most a minute); throws when it fails.
    package static func run(_ script: URL) async throws {
        let process = Process()
        process.executableURL = script
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        guard !process.isRunning, process.terminationStatus == 0 else {
            if process.isRunning { process.terminate() }
            throw SecureStoreError(code: .ioFailure, message: "\(script.lastPathComponent) failed or did not finish")
        }
    }

    private static var certificateAuthorityRecord: URL {
        restartScript.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".postgres/ca")
    }

    /// Whether the TLS tests should run: the cluster of this checkout serves TLS, or PostgreSQL is required.
    package static var hasTLS: Bool {
        url != nil && (FileManager.default.fileExists(atPath: certificateAuthorityRecord.path) || isRequired)
    }

    package static let tlsReason = "TLS needs the cluster of scripts/postgres-start.sh (with openssl) in this checkout"

    /// The path of the test cluster's certificate authority (PEM).
    package static func certificateAuthority() throws -> String {
        try String(contentsOf: certificateAuthorityRecord, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    package typealias Missing = TestPostgresEnvironment.Missing

    /// The configuration from the URL, with `change` applied.
    package static func configuration(
        _ change: (inout PostgresSessionStore.Configuration) -> Void = { _ in }
    ) throws -> PostgresSessionStore.Configuration {
        guard let url else { throw Missing() }
        var configuration = try PostgresSessionStore.Configuration(url: url)
        configuration.connectionIdleTimeout = .seconds(1)
        change(&configuration)
        return configuration
    }

    /// Fixed test keys: the tests need keys that two stores share.
    package static let keyA = SymmetricKey(data: Data(repeating: 0xA1, count: 32))
    package static let keyB = SymmetricKey(data: Data(repeating: 0xB2, count: 32))

    package static func keys() throws(SecureStoreError) -> PostgresSessionStore.Keys {
        try PostgresSessionStore.Keys(current: (id: "a", key: keyA))
    }

    /// Runs the migrations once per test process (they are idempotent and safe in parallel anyway).
    private static let migrated = Task { () async throws -> Void in
        guard let url else { throw SecureStoreError(code: .invalidArgument, message: Missing().description) }
        let store = try running(
            PostgresSessionStore(service: "sessionkit.tests.migrate", configuration: .init(url: url), keys: keys()))
        try await store.migrate()
    }

    /// Waits until the test database is migrated (once per test process).
    package static func migrate() async throws {
        try await migrated.value
    }

    /// A store for `service` (a fresh, unique one by default) on the test database, migrated and running.
    package static func store(
        service: String = "tests.\(UUID().uuidString)",
        keys: PostgresSessionStore.Keys? = nil,
        configure: (inout PostgresSessionStore.Configuration) -> Void = { _ in }
    ) async throws -> PostgresSessionStore {
        try await migrated.value
        return running(
            try PostgresSessionStore(
                service: service,
                configuration: configuration(configure),
                keys: keys ?? Self.keys()
            ))
    }

    /// `store`, its connection pool running for the rest of the test process. Its idle connections close
    /// after a second, so the many stores of a test run do not hold PostgreSQL's connections.
    package static func running(_ store: PostgresSessionStore) -> PostgresSessionStore {
        Task { try? await store.run() }
        return store
    }
}

/// Runs `body`, returning the `SecureStoreError` it throws, or `nil` when it throws none.
package func storeError<Failure: Error>(_ body: () async throws(Failure) -> Void) async -> SecureStoreError? {
    do {
        try await body()
        return nil
    } catch let error as SecureStoreError {
        return error
    } catch {
        return SecureStoreError(code: .ioFailure, message: "unexpected error type: \(error)")
    }
}
