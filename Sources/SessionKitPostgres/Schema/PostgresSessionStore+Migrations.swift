public import Logging
public import PostgresNIO
import SecureStore
public import ServiceLifecycle

extension PostgresSessionStore {
    /// The store's schema migrations as a swift-service-lifecycle `Service`: put it in the application's service
    /// group beside the `PostgresClient`, and let what needs the tables wait for ``ready()``.
    ///
    /// ``run()`` applies the migrations this version of SessionKit knows and the database lacks, as
    /// ``PostgresSessionStore/migrate()`` does (in one transaction, under an advisory lock, so that every instance
    /// may run it at once and each migration is applied once), tells every ``ready()`` waiting, then stays until
    /// the service group shuts down (a service that returns would end the group). When the migrations fail,
    /// ``run()`` throws, which ends the group, and ``ready()`` throws the same error.
    ///
    /// With the application's client (``init(client:timeout:logger:)``) no store is needed, so a deployment
    /// command can apply the migrations alone; with a store (``init(store:)``) they go through the store's
    /// deadlines, which also tell at once why the database cannot be reached.
    ///
    /// The module's overview (<doc:SessionKitPostgres>) shows an application that runs it beside its client, and
    /// <doc:OperatingThePostgresStore> what it does when it fails.
    public final class Migrations: Service, Sendable {
        /// Where the migrations go through.
        private enum Target: Sendable {
            case client(PostgresClient, timeout: Duration, logger: Logger)
            case store(PostgresSessionStore)
        }

        private let target: Target
        private let outcome = MigrationOutcome()

        /// Migrations applied with a connection of the application's `client`, which the application runs (in the
        /// same service group); this service never runs it nor closes it.
        ///
        /// - Parameters:
        ///   - client: The application's client for the database that holds (or will hold) the store's tables.
        ///   - timeout: How long applying them may take, the wait for a connection included; then ``run()`` fails
        ///     as unavailable. A client that cannot connect at all may fail the wait sooner (PostgresNIO's pool
        ///     gives up after a minute of failed attempts). ``init(store:)`` says why at once.
        ///   - logger: Where the migrations' statements and the versions applied are logged (at `notice`);
        ///     nothing is logged by default.
        public init(
            client: PostgresClient, timeout: Duration = .seconds(120),
            logger: Logger = Logger(label: "sessionkit.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            target = .client(client, timeout: timeout, logger: logger)
        }

        /// Migrations applied with `store`'s ``PostgresSessionStore/migrate()``: on the store's client (its own or
        /// the application's), within the store's deadlines, logged to the store's logger.
        public init(store: PostgresSessionStore) {
            target = .store(store)
        }

        /// Applies the pending migrations, tells ``ready()``, and returns when the service group shuts down or the
        /// task is cancelled.
        ///
        /// - Throws: The ``SecureStore/SecureStoreError`` of ``PostgresSessionStore/migrate()`` when the
        ///   migrations cannot be applied.
        public func run() async throws {
            let result: Result<[Int], SecureStoreError>
            do throws(SecureStoreError) {
                result = .success(try await apply())
            } catch {
                result = .failure(error)
            }
            outcome.finish(result)
            switch result {
            case .success(let versions) where !versions.isEmpty:
                logger.notice("applied SessionKit's schema migrations", metadata: ["versions": "\(versions)"])
            case .success:
                logger.debug("SessionKit's schema is up to date")
            case .failure(let error):
                logger.error("SessionKit's schema migrations failed", metadata: ["error": "\(error)"])
                throw error
            }
            try? await gracefulShutdown()
        }

        /// Waits until ``run()`` has applied the migrations, and returns the versions it applied (empty when the
        /// schema was up to date). Call it before serving, or at the start of any service that uses the tables.
        ///
        /// - Throws: The migrations' ``SecureStore/SecureStoreError`` when they failed; `CancellationError` when the
        ///   waiting task is cancelled before they are done.
        @discardableResult
        public func ready() async throws -> [Int] {
            try await outcome.wait()
        }

        private func apply() async throws(SecureStoreError) -> [Int] {
            switch target {
            case .client(let client, let timeout, let logger):
                try await Migration.applyPending(with: client, within: timeout, logger: logger)
            case .store(let store):
                try await store.migrate()
            }
        }

        private var logger: Logger {
            switch target {
            case .client(_, _, let logger): logger
            case .store(let store): store.logger
            }
        }
    }
}
