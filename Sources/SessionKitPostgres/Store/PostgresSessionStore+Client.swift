public import CoreMetrics
public import Logging
import NIOCore
public import PostgresNIO
public import SecureStore

extension PostgresSessionStore {
    /// Creates a store for `service` with a connection pool of its own, built from `configuration`. Opens no
    /// connection until the first call; ``run()`` must be running by then. To share the application's
    /// `PostgresClient` instead, see ``init(service:client:listener:keys:callTimeout:acquireTimeout:logger:metrics:)``.
    ///
    /// - Parameters:
    ///   - service: The service whose items this store holds, for example `"com.example.web"`.
    ///   - configuration: Where the database is.
    ///   - keys: The application's keys that seal the rows.
    ///   - logger: Where PostgresNIO logs its connections' events; nothing is logged by default. The store
    ///     itself logs no value, key or password.
    ///   - metrics: Where each call's duration and failures are counted; swift-metrics' bootstrapped factory by
    ///     default.
    /// - Throws: ``SecureStore/SecureStoreError/Code/invalidArgument`` for an empty service, or TLS settings
    ///   that cannot be used (an unreadable root certificate file).
    public convenience init(
        service: String,
        configuration: Configuration,
        keys: Keys,
        logger: Logger = Logger(label: "sessionkit.postgres", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: (any MetricsFactory)? = nil
    ) throws(SecureStoreError) {
        let connection = try configuration.connectionConfiguration()
        let client = PostgresClient(configuration: try configuration.clientConfiguration(), backgroundLogger: logger)
        try self.init(
            service: service, configuration: configuration, client: client, ownsClient: true, listener: connection,
            keys: keys, logger: logger, metrics: metrics)
    }

    /// Creates a store for `service` over the application's `client`, which the application creates, runs (in its
    /// service group) and shuts down: the store never runs it nor closes it, and shares its pool with whatever else
    /// the application does with it.
    ///
    /// The store still opens connections of its own outside the pool, with `listener`: one for each ``changes()``
    /// stream, since a `LISTEN` must stay on one connection for as long as the stream is wanted (a pooled one would
    /// be held from the pool, and handed back still listening), and one now and then to find out why the pool hands
    /// out no connection (a wrong password, a refused certificate), which the pool keeps to itself. Give it the
    /// settings the client connects with; ``Configuration/connectionConfiguration()`` and
    /// ``Configuration/clientConfiguration()`` make both from one database URL.
    ///
    /// The client's settings are the application's: how many connections, their TLS, and the server-side
    /// `lock_timeout` and `statement_timeout` (a store made from a ``Configuration`` sets them as startup
    /// parameters; ``Configuration/clientConfiguration()`` does too). Whatever they are, every call of the store
    /// ends by `callTimeout`; a connection of the client that a call gives up on at that deadline is closed (a hung
    /// server answers nothing else), handed back to the pool only once closed (so that the pool lends it to none of
    /// the application's queries while it closes), and replaced.
    ///
    /// ``run()`` owns nothing to run here; ``configuration`` describes the listener's database and the deadlines.
    ///
    /// - Parameters:
    ///   - service: The service whose items this store holds, for example `"com.example.web"`.
    ///   - client: The application's client for the database that holds the store's tables.
    ///   - listener: PostgresNIO's settings for one connection to the same database as `client`, for the change
    ///     listener.
    ///   - keys: The application's keys that seal the rows.
    ///   - callTimeout: How long one call (the wait for a connection included) may take before it fails as
    ///     unavailable; see ``Configuration/callTimeout``.
    ///   - acquireTimeout: How long a call waits for a connection of `client` before it looks for why there is
    ///     none; see ``Configuration/acquireTimeout``.
    ///   - logger: Where the store's statements and the listener's connection log; nothing is logged by default.
    ///     The store itself logs no value, key or password.
    ///   - metrics: Where each call's duration and failures are counted; swift-metrics' bootstrapped factory by
    ///     default.
    /// - Throws: ``SecureStore/SecureStoreError/Code/invalidArgument`` for an empty service.
    public convenience init(
        service: String,
        client: PostgresClient,
        listener: PostgresConnection.Configuration,
        keys: Keys,
        callTimeout: Duration = .seconds(15),
        acquireTimeout: Duration = .seconds(3),
        logger: Logger = Logger(label: "sessionkit.postgres", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: (any MetricsFactory)? = nil
    ) throws(SecureStoreError) {
        var configuration = Configuration(describing: listener)
        configuration.callTimeout = callTimeout
        configuration.acquireTimeout = acquireTimeout
        try self.init(
            service: service, configuration: configuration, client: client, ownsClient: false, listener: listener,
            keys: keys, logger: logger, metrics: metrics)
    }
}

extension PostgresSessionStore.Configuration {
    /// What a store over the application's client knows of the database from its listener's settings: the
    /// address, the role, the password (printed redacted, as ever) and the database for descriptions, the connect
    /// timeout, and the TLS mode as far as PostgresNIO tells it (``PostgresSessionStore/TLS/require`` for any mode
    /// that insists on TLS). Nothing connects with this configuration.
    init(describing listener: PostgresConnection.Configuration) {
        self.init(
            host: listener.host ?? listener.unixSocketPath ?? "localhost",
            port: listener.port ?? 5432,
            username: listener.username,
            password: listener.password,
            database: listener.database ?? listener.username,
            connectTimeout: .nanoseconds(listener.options.connectTimeout.nanoseconds)
        )
        tls = listener.tls.isEnforced ? .require : listener.tls.isAllowed ? .prefer : .disable
    }
}
