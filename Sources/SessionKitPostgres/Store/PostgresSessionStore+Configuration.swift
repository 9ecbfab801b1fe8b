import Foundation
public import PostgresNIO
public import SecureStore

extension PostgresSessionStore {
    /// Where the database is and how the store talks to it.
    ///
    /// The ``description`` never shows the password, so a configuration can be logged or put in an error.
    ///
    /// ```swift
    /// let configuration = try PostgresSessionStore.Configuration(url: environment["DATABASE_URL"]!)
    /// ```
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The server's host name or address.
        public var host: String
        /// The server's TCP port.
        public var port: Int
        /// The role to sign in as.
        public var username: String
        /// The role's password, or `nil` for a server that asks for none. Never printed.
        public var password: String?
        /// The database that holds the store's tables.
        public var database: String
        /// How many connections one store keeps open at most. Calls beyond that wait for a free one, within
        /// ``callTimeout``.
        public var maximumConnections: Int
        /// How long to wait for a connection to the server before the call fails as unavailable.
        public var connectTimeout: Duration
        /// How long a call waits for a connection (a free one of the pool, or a new one) before it fails as
        /// unavailable; never longer than ``callTimeout``. A server that is down or not answering is given up on
        /// after this long (the pool keeps trying to connect in the background).
        public var acquireTimeout: Duration
        /// How long a statement may wait for a lock another writer holds (another instance renewing the same
        /// session) before the call fails as unavailable.
        public var lockTimeout: Duration
        /// How long one statement may run on the server before it is cancelled and the call fails as
        /// unavailable.
        public var statementTimeout: Duration
        /// How long one call of the store (all its statements, the wait for a connection included) may take
        /// before it fails as unavailable, whatever the database does: a server that stops answering (frozen,
        /// partitioned) is given up on at this deadline, and the connection closed.
        public var callTimeout: Duration = .seconds(15)
        /// How long a connection of the pool may stay idle before it is closed.
        public var connectionIdleTimeout: Duration = .seconds(60)
        /// The `application_name` the store's connections show in `pg_stat_activity`.
        public var applicationName: String = "sessionkit"
        /// Whether and how connections use TLS; ``PostgresSessionStore/TLS/prefer`` unless the URL says.
        public var tls: TLS = .prefer

        /// Creates a configuration from its parts.
        public init(
            host: String,
            port: Int = 5432,
            username: String,
            password: String?,
            database: String,
            maximumConnections: Int = 4,
            connectTimeout: Duration = .seconds(5),
            acquireTimeout: Duration = .seconds(3),
            lockTimeout: Duration = .seconds(10),
            statementTimeout: Duration = .seconds(30)
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.maximumConnections = maximumConnections
            self.connectTimeout = connectTimeout
            self.acquireTimeout = acquireTimeout
            self.lockTimeout = lockTimeout
            self.statementTimeout = statementTimeout
        }

        /// Creates a configuration from a URL of the form `postgres://user:password@host:port/database`
        /// (`postgresql://` too), optionally followed by `?sslmode=verify-full&sslrootcert=/path/ca.pem` (see
        /// ``PostgresSessionStore/TLS``). The user name and password may be percent-encoded.
        ///
        /// - Throws: ``SecureStoreError/Code/invalidArgument`` when the URL is not of that form. The message
        ///   never contains the password.
        public init(url: String) throws(SecureStoreError) {
            func invalid(_ what: String) -> SecureStoreError {
                SecureStoreError(
                    code: .invalidArgument,
                    message:
                        "the database URL \(what); pass one of the form postgres://user:password@host:port/database"
                )
            }
            guard let components = URLComponents(string: url) else { throw invalid("cannot be parsed") }
            guard components.scheme == "postgres" || components.scheme == "postgresql" else {
                throw invalid("does not start with postgres://")
            }
            guard let host = components.host, !host.isEmpty else { throw invalid("has no host") }
            guard let username = components.user?.removingPercentEncoding, !username.isEmpty else {
                throw invalid("has no user name")
            }
            let database = String(components.path.drop(while: { $0 == "/" }))
            guard !database.isEmpty else { throw invalid("names no database") }
            var parameters: [String: String] = [:]
            for item in components.queryItems ?? [] {
                guard ["sslmode", "sslrootcert"].contains(item.name), let value = item.value else {
                    throw invalid(
                        "has the parameter '\(item.name)', which SessionKit does not know (sslmode and sslrootcert only)"
                    )
                }
                parameters[item.name] = value
            }
            let tls = try TLS(sslmode: parameters["sslmode"], rootCertificates: parameters["sslrootcert"])
            self.init(
                host: host,
                port: components.port ?? 5432,
                username: username,
                password: components.password?.removingPercentEncoding,
                database: database.removingPercentEncoding ?? database
            )
            self.tls = tls
        }

        /// The URL without its password, for logs and errors:
        /// `postgres://user:<REDACTED>@host:port/database?sslmode=prefer`.
        public var description: String {
            let secret = password == nil ? "" : ":<REDACTED>"
            return "postgres://\(username)\(secret)@\(host):\(port)/\(database)?sslmode=\(tls)"
        }

        /// PostgresNIO's settings for one connection to this database: the host, the role, the TLS mode, the
        /// connect timeout, and the application name, lock timeout and statement timeout as startup parameters.
        /// A store made from this configuration listens for changes on such a connection; give one to a store over
        /// the application's client (``PostgresSessionStore/init(service:client:listener:keys:callTimeout:acquireTimeout:logger:metrics:)``).
        ///
        /// - Throws: ``SecureStore/SecureStoreError/Code/invalidArgument`` for TLS settings that cannot be used (an
        ///   unreadable root certificate file).
        public func connectionConfiguration() throws(SecureStoreError) -> PostgresConnection.Configuration {
            var options = PostgresConnection.Configuration.Options()
            options.connectTimeout = .milliseconds(connectTimeout.milliseconds)
            options.additionalStartupParameters = startupParameters
            var postgres = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: database,
                tls: try tls.connectionTLS())
            postgres.options = options
            return postgres
        }

        /// PostgresNIO's settings for a `PostgresClient` of this database: those of
        /// ``connectionConfiguration()``, with ``maximumConnections`` and ``connectionIdleTimeout`` for its pool.
        /// A store made from this configuration runs such a client of its own; an application that owns its client
        /// can make it from these settings, and share it with the store and its own queries.
        ///
        /// - Throws: ``SecureStore/SecureStoreError/Code/invalidArgument`` for TLS settings that cannot be used (an
        ///   unreadable root certificate file).
        public func clientConfiguration() throws(SecureStoreError) -> PostgresClient.Configuration {
            var client = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database,
                tls: try tls.clientTLS())
            client.options.connectTimeout = connectTimeout
            client.options.maximumConnections = max(1, maximumConnections)
            client.options.connectionIdleTimeout = connectionIdleTimeout
            client.options.additionalStartupParameters = startupParameters
            return client
        }

        private var startupParameters: [(String, String)] {
            [
                ("application_name", applicationName),
                ("lock_timeout", String(lockTimeout.milliseconds)),
                ("statement_timeout", String(statementTimeout.milliseconds)),
            ]
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
