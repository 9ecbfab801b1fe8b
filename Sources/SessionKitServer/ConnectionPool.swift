import Dispatch
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import SecureStore
import Synchronization

/// A small, bounded pool of PostgreSQL connections for synchronous callers.
///
/// At most `maximumConnections` connections are open; a caller beyond that waits up to the configured acquire
/// timeout for one to be handed back. Connections open lazily, and one found closed (the server restarted,
/// the network dropped it) is discarded and replaced on the next call, so the pool reconnects by itself.
///
/// Calls block their thread while NIO's event-loop threads do the I/O. They must not be made on an event
/// loop (NIO traps `wait()` there); Swift concurrency's threads and ordinary threads are fine.
final class ConnectionPool: Sendable {
    private let configuration: PostgresSessionStore.Configuration
    private let logger: Logger
    private let permits: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic<Int>(1)
    /// PostgresNIO's configuration, made once: its TLS context loads the trusted roots.
    private let postgres: Result<PostgresConnection.Configuration, SecureStoreError>

    init(configuration: PostgresSessionStore.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.permits = DispatchSemaphore(value: max(1, configuration.maximumConnections))
        self.postgres = Result { () throws(SecureStoreError) in try Self.postgresConfiguration(configuration) }
    }

    deinit {
        for connection in idle.withLock({ $0 }) {
            Self.close(connection)
        }
    }

    /// Runs `body` with a connection of the pool, opening one if none is idle.
    ///
    /// A connection that `body` leaves closed, or on which it threw a non-``SecureStoreError`` error that means
    /// the connection is lost, is not handed back.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard permits.wait(timeout: .now() + configuration.acquireTimeout.dispatchInterval) == .success else {
            throw SecureStoreError(
                code: .unavailable,
                message: "all \(configuration.maximumConnections) connections to \(configuration) stayed busy for "
                    + "\(configuration.acquireTimeout); try again later, or raise maximumConnections"
            )
        }
        defer { permits.signal() }
        let connection = try checkOut()
        do {
            let result = try body(connection)
            checkIn(connection)
            return result
        } catch {
            if PostgresErrors.meansConnectionLost(error) {
                Self.close(connection)
            } else {
                checkIn(connection)
            }
            throw error
        }
    }

    /// Closes `connection` without waiting, keeping it alive until it is closed (PostgresNIO requires that).
    static func close(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    private func checkOut() throws(SecureStoreError) -> PostgresConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        return try connect()
    }

    private func checkIn(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        idle.withLock { $0.append(connection) }
    }

    /// PostgresNIO's configuration for a connection of the store: its TLS mode, the timeouts as startup
    /// parameters.
    private static func postgresConfiguration(
        _ configuration: PostgresSessionStore.Configuration
    ) throws(SecureStoreError) -> PostgresConnection.Configuration {
        var options = PostgresConnection.Configuration.Options()
        options.connectTimeout = configuration.connectTimeout.timeAmount
        options.additionalStartupParameters = [
            ("application_name", configuration.applicationName),
            ("lock_timeout", String(configuration.lockTimeout.milliseconds)),
            ("statement_timeout", String(configuration.statementTimeout.milliseconds)),
        ]
        var postgres = PostgresConnection.Configuration(
            host: configuration.host,
            port: configuration.port,
            username: configuration.username,
            password: configuration.password,
            database: configuration.database,
            tls: try configuration.tls.postgres()
        )
        postgres.options = options
        return postgres
    }

    /// PostgresNIO's configuration for this pool's database, made once.
    func connectionConfiguration() throws(SecureStoreError) -> PostgresConnection.Configuration {
        try postgres.get()
    }

    private func connect() throws(SecureStoreError) -> PostgresConnection {
        let postgres = try connectionConfiguration()
        let id = nextID.add(1, ordering: .relaxed).oldValue
        do {
            // PostgresNIO's connect timeout covers the TCP connect and the handshake; this bound on the wait
            // is a backstop against a server that accepts connections and never answers.
            let connecting = PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(),
                configuration: postgres,
                id: id,
                logger: logger
            )
            guard
                let connection = try connecting.wait(
                    atMost: configuration.connectTimeout + .seconds(1),
                    onLateSuccess: {
                        Self.close($0)
                    })
            else {
                throw SecureStoreError(
                    code: .unavailable,
                    message:
                        "connecting to \(configuration) timed out after \(configuration.connectTimeout): the server "
                        + "did not answer; keep the session and try again once PostgreSQL is up"
                )
            }
            return connection
        } catch {
            throw PostgresErrors.map(error, while: "connecting to \(configuration)")
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    var timeAmount: TimeAmount { .milliseconds(milliseconds) }

    var dispatchInterval: DispatchTimeInterval { .milliseconds(Int(milliseconds)) }
}
