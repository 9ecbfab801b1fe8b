import Foundation
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
        /// How many connections one store keeps open at most. Calls beyond that wait for a free one.
        public var maximumConnections: Int
        /// How long to wait for a connection to the server before the call fails as unavailable.
        public var connectTimeout: Duration
        /// How long a call waits for a free connection of the pool before it fails as unavailable.
        public var acquireTimeout: Duration
        /// How long a statement may wait for a lock another writer holds (another instance renewing the same
        /// session) before the call fails as unavailable.
        public var lockTimeout: Duration
        /// How long one statement may run on the server before it is cancelled and the call fails as
        /// unavailable.
        public var statementTimeout: Duration
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
            acquireTimeout: Duration = .seconds(10),
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
    }
}
