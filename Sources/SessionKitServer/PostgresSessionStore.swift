import Crypto
public import Foundation
public import Logging
import NIOCore
import PostgresNIO
public import SecureStore
import Synchronization

/// A ``SecureStore`` on PostgreSQL, shared by every instance of a server: what `SessionManager` uses exactly
/// as it uses the file store, with renewal single-flight across instances.
///
/// Each item is one row of `sessionkit_items`, keyed by the service and the SHA-256 of the item's key. The
/// value and the key itself are sealed with AES-GCM under the application's ``Keys``; the associated data
/// binds the service and the key, so someone who can read or write the database can neither read a value nor
/// move one to another row. Each row records its key id (for rotation), a generation counter that every write
/// increments, and when it was last written.
///
/// ``update(forKey:_:)`` runs in one transaction holding a transaction-scoped advisory lock for the key and
/// the row lock, so no writer in this process or any other instance can change the item between the read
/// and the write. `SessionManager` keeps its renewal lease inside the session record and takes it with
/// `update`, so two instances never renew the same refresh token at once.
///
/// Every write and delete sends `NOTIFY sessionkit_items` with the payload `<service>:<hex SHA-256 of the
/// key>` (`<service>:*` for ``deleteAll()``), never the key itself, so other instances can drop cached copies.
///
/// ## Blocking
/// ``SecureStore`` is synchronous, so every call blocks its thread until PostgreSQL answers, as the file
/// store blocks on its lock. The I/O runs on NIO's event-loop threads, so blocking a Swift-concurrency
/// thread cannot deadlock; do not call the store from a NIO event loop. Calls are bounded by the
/// configuration's timeouts.
///
/// ## Schema
/// Call ``migrate()`` once at start-up (or from a deployment command) before using the store; it is safe to
/// run from many instances at once. See ``migrate()`` for the tables.
///
/// ## Errors
/// - PostgreSQL unreachable, restarting, or a lock held past the lock timeout:
///   ``SecureStoreError/Code/unavailable`` (retryable; keep the session).
/// - A row that fails authentication or names an unknown key id: ``SecureStoreError/Code/corrupted``, with
///   the key id and what to do; nothing else is touched.
/// - Messages never contain a stored value, an item's key, key material or the database password.
public final class PostgresSessionStore: SecureStore, SecureStoreJournal, CustomStringConvertible {
    /// The service whose items this store holds.
    public let service: String
    /// Where the database is. Its description has no password.
    public let configuration: Configuration

    let sealer: RowSealer
    let pool: ConnectionPool
    let logger: Logger
    private let statements = Atomic<Int>(0)

    /// How many SQL statements this store has sent, each one round trip: for monitoring, and for tests that
    /// check a path makes no round trip.
    public var statementCount: Int { statements.load(ordering: .relaxed) }

    /// The NOTIFY channel every write and delete is announced on.
    public static let notificationChannel = "sessionkit_items"

    /// Creates a store for `service`. Opens no connection until the first call.
    ///
    /// - Parameters:
    ///   - service: The service whose items this store holds, for example `"com.example.web"`.
    ///   - configuration: Where the database is.
    ///   - keys: The application's keys that seal the rows.
    ///   - logger: Where PostgresNIO logs its connections' events; nothing is logged by default. The store
    ///     itself logs no value, key or password.
    /// - Throws: ``SecureStoreError/Code/invalidArgument`` for an empty service.
    public init(
        service: String,
        configuration: Configuration,
        keys: Keys,
        logger: Logger = Logger(label: "sessionkit.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(SecureStoreError) {
        guard !service.isEmpty else {
            throw SecureStoreError(code: .invalidArgument, message: "the service name is empty; pass a non-empty one")
        }
        self.service = service
        self.configuration = configuration
        self.sealer = RowSealer(keys: keys, service: service)
        self.logger = logger
        self.pool = ConnectionPool(configuration: configuration, logger: logger)
    }

    /// The service and the database, without the password.
    public var description: String {
        "PostgresSessionStore(service: \(service), database: \(configuration))"
    }

    // MARK: SecureStore

    /// Returns the data stored under `key`, or `nil` when there is none.
    public func data(forKey key: String) throws(SecureStoreError) -> Data? {
        let digest = try Self.digest(key)
        let rows = try run("reading an item") { connection in
            try execute(
                connection,
                "SELECT sealed, key_id FROM sessionkit_items WHERE service = \(service) AND key_digest = \(digest)")
        }
        guard let row = rows.first else { return nil }
        return try openValue(row, digest: digest)
    }

    /// Stores `data` under `key`, replacing any earlier value, and announces the change.
    public func setData(_ data: Data, forKey key: String) throws(SecureStoreError) {
        let digest = try Self.digest(key)
        let digestData = Data(digest.readableBytesView)
        let sealedKey = try sealer.seal(Data(key.utf8), purpose: .itemKey, keyDigest: digestData)
        let sealed = try sealer.seal(data, purpose: .itemValue, keyDigest: digestData)
        let keyID = sealer.keys.current.id
        let lock = lockKey(digest)
        let payload = notification(digest)
        // One statement, so one implicit transaction: the advisory lock makes it wait for an `update` of the
        // same key in progress (which may be about to insert the row) instead of being overwritten by it.
        try run("writing an item") { connection in
            _ = try execute(
                connection,
                """
                WITH lock AS (SELECT pg_advisory_xact_lock(\(lock))),
                written AS (
                    INSERT INTO sessionkit_items (service, key_digest, key_sealed, sealed, key_id)
                    SELECT \(service), \(digest), \(sealedKey), \(sealed), \(keyID) FROM lock
                    ON CONFLICT (service, key_digest) DO UPDATE SET key_sealed = EXCLUDED.key_sealed,
                        sealed = EXCLUDED.sealed, key_id = EXCLUDED.key_id,
                        generation = sessionkit_items.generation + 1, updated_at = now()
                    RETURNING 1)
                SELECT pg_notify(\(Self.notificationChannel), \(payload)) FROM written
                """)
        }
    }

    /// Removes the item under `key` and announces it. Removing a missing item is not an error.
    public func deleteItem(forKey key: String) throws(SecureStoreError) {
        let digest = try Self.digest(key)
        let payload = notification(digest)
        try run("deleting an item") { connection in
            _ = try execute(
                connection,
                """
                WITH deleted AS (
                    DELETE FROM sessionkit_items WHERE service = \(service) AND key_digest = \(digest) RETURNING 1)
                SELECT pg_notify(\(Self.notificationChannel), \(payload)) FROM deleted
                """)
        }
    }

    /// Removes every item and journal entry of this service, and only this service's, and announces it with
    /// the payload `<service>:*`.
    public func deleteAll() throws(SecureStoreError) {
        let payload = service + ":*"
        try run("deleting the service's items") { connection in
            _ = try execute(
                connection,
                """
                WITH items AS (DELETE FROM sessionkit_items WHERE service = \(service) RETURNING 1),
                journal AS (DELETE FROM sessionkit_journal WHERE service = \(service) RETURNING 1)
                SELECT pg_notify(\(Self.notificationChannel), \(payload))
                """)
        }
    }

    /// The keys of this service's items, sorted. Opens every row's sealed key, so a row that fails
    /// authentication makes the call fail with ``SecureStoreError/Code/corrupted``.
    public func keys() throws(SecureStoreError) -> [String] {
        let rows = try run("listing the service's keys") { connection in
            try execute(
                connection, "SELECT key_sealed, key_id, key_digest FROM sessionkit_items WHERE service = \(service)")
        }
        var keys: [String] = []
        for row in rows {
            let (sealed, keyID, digest) = try decodeRow(row, as: (ByteBuffer, String, ByteBuffer).self)
            let digestData = Data(digest.readableBytesView)
            let plain = try sealer.open(
                Data(sealed.readableBytesView),
                keyID: keyID,
                purpose: .itemKey,
                keyDigest: digestData,
                what: "the key of row \(Self.hex(digestData).prefix(16))… of service '\(service)'"
            )
            guard let key = String(data: plain, encoding: .utf8), Self.digestData(key) == digestData else {
                throw SecureStoreError(
                    code: .corrupted,
                    message: "the key of row \(Self.hex(digestData).prefix(16))… of service '\(service)' does not "
                        + "match its digest; delete the row"
                )
            }
            keys.append(key)
        }
        return keys.sorted()
    }

    /// Atomically reads the item under `key`, passes it to `transform`, and stores what it returns (`nil`
    /// deletes the item), in one transaction that holds the key's advisory lock and the row lock. No other
    /// writer, in this process or another instance, can change the item in between; a writer waits at most
    /// the configuration's lock timeout, then fails as ``SecureStoreError/Code/unavailable``.
    ///
    /// `transform` runs while the lock is held: keep it short (no network calls). An error it throws
    /// propagates unchanged and leaves the item as it was.
    ///
    /// - Returns: The value that `transform` returned, as now stored.
    @discardableResult
    public func update(forKey key: String, _ transform: (Data?) throws -> Data?) throws -> Data? {
        try updateItem(forKey: key, transform)
    }

    // MARK: Helpers

    /// Runs `body` with a pooled connection, mapping database errors to ``SecureStoreError``.
    func run<T>(_ action: String, _ body: (PostgresConnection) throws -> T) throws(SecureStoreError) -> T {
        do {
            return try pool.withConnection(body)
        } catch {
            throw PostgresErrors.map(error, while: action + " of service '\(service)'")
        }
    }

    /// Runs one statement and returns its rows, waiting at most the statement timeout and five seconds more
    /// (the server cancels it at the statement timeout; the margin covers a server that stopped answering).
    /// A connection that timed out is closed, so the pool replaces it.
    func execute(_ connection: PostgresConnection, _ query: PostgresQuery) throws -> [PostgresRow] {
        try send(connection) { connection.query(query, logger: logger).map(\.rows) }
    }

    private func send(_ connection: PostgresConnection, _ query: () -> EventLoopFuture<[PostgresRow]>) throws
        -> [PostgresRow]
    {
        // PostgresNIO 1.33's future API never completes a query sent on a closed connection: check first.
        guard !connection.isClosed else {
            throw SecureStoreError(
                code: .unavailable,
                message: "the connection to \(configuration) was closed by the server or the network; keep the "
                    + "session and try again"
            )
        }
        statements.add(1, ordering: .relaxed)
        let limit = configuration.statementTimeout + .seconds(5)
        guard let rows = try query().wait(atMost: limit) else {
            ConnectionPool.close(connection)
            throw SecureStoreError(
                code: .unavailable,
                message: "PostgreSQL did not answer within \(limit); the connection was closed; keep the session "
                    + "and try again"
            )
        }
        return rows
    }

    func openValue(_ row: PostgresRow, digest: ByteBuffer) throws(SecureStoreError) -> Data {
        let (sealed, keyID) = try decodeRow(row, as: (ByteBuffer, String).self)
        let digestData = Data(digest.readableBytesView)
        return try sealer.open(
            Data(sealed.readableBytesView),
            keyID: keyID,
            purpose: .itemValue,
            keyDigest: digestData,
            what: "the item in row \(Self.hex(digestData).prefix(16))… of service '\(service)'"
        )
    }

    func decodeRow<each T: PostgresDecodable>(
        _ row: PostgresRow,
        as type: (repeat each T).Type
    ) throws(SecureStoreError) -> (repeat each T) {
        do {
            return try row.decode(type)
        } catch {
            throw SecureStoreError(
                code: .corrupted,
                message: "a row of service '\(service)' has columns of unexpected types; run migrate() with this "
                    + "version of SessionKit",
                underlyingError: error
            )
        }
    }

    /// The NOTIFY payload for the item whose key has `digest`.
    func notification(_ digest: ByteBuffer) -> String {
        service + ":" + Self.hex(Data(digest.readableBytesView))
    }

    static func digest(_ key: String) throws(SecureStoreError) -> ByteBuffer {
        guard !key.isEmpty else {
            throw SecureStoreError(code: .invalidArgument, message: "the item key is empty; pass a non-empty key")
        }
        return ByteBuffer(bytes: digestData(key))
    }

    static func digestData(_ key: String) -> Data {
        RowSealer.digest(ofKey: key)
    }

    /// The advisory lock for the key with `digest` in this service: the first eight bytes of the SHA-256 of
    /// both, as a signed integer. Two keys that share a lock only wait for each other.
    func lockKey(_ digest: ByteBuffer) -> Int64 {
        var bytes = Data(service.utf8)
        bytes.append(0)
        bytes.append(contentsOf: digest.readableBytesView)
        let hash = SHA256.hash(data: bytes)
        return hash.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}
