import CoreMetrics
import Crypto
public import Foundation
import Logging
import NIOCore
import PostgresNIO
public import SecureStore
public import ServiceLifecycle
import SessionKitSupport
import Synchronization

/// An ``SecureStore/AsyncSecureStore`` on PostgreSQL, shared by every instance of a server, with renewal
/// single-flight across instances. Built on PostgresNIO's `PostgresClient` (its pool, its transactions), and
/// a swift-service-lifecycle `Service`.
///
/// The store takes the application's `PostgresClient`
/// (``init(service:client:listener:keys:callTimeout:acquireTimeout:logger:metrics:)``), which the application runs
/// in its service group and may use for its own queries too; or it builds a client of its own from a
/// ``Configuration`` (``init(service:configuration:keys:logger:metrics:)``), which it runs in ``run()``: run the
/// store in the application's service group, or call ``run()`` in a task of its own, before the first call.
///
/// Each item is one row of `sessionkit_items`, keyed by the service and the SHA-256 of the item's key. The
/// value and the key itself are sealed with AES-GCM under the application's ``Keys``; the associated data
/// binds the service and the key, so someone who can read or write the database can neither read a value nor
/// move one to another row. Each row records its key id (for rotation), a generation counter that every write
/// increments, and when it was last written.
///
/// It is a ``SecureStore/VersionedSecureStore``: a session manager reads an item with its generation and writes it
/// back only if the generation is still the one it read (``replace(forKey:ifVersion:with:dueAt:)``), in one round
/// trip; a refused write brings the stored item back. A renewal lease lives beside the value, in the row's
/// `lease_owner` and `lease_until` columns, and is taken by the read that finds the session due
/// (``leaseIfDue(forKey:dueBy:lease:)``), so two instances never renew the same refresh token at once. Concurrent
/// calls of those two kinds go out batched, a statement for up to 100 (docs/design-postgres-store.md).
/// ``update(forKey:_:)``, for other callers, runs in one transaction holding the key's advisory lock and the row lock.
///
/// Every write and delete sends `NOTIFY sessionkit_items`, naming the item by its key's digest and never by the
/// key itself, so other instances can drop or replace cached copies (``changes()``). A conditional write's
/// announcement is sealed whole (the writer, the row's new generation and the value) with the application's key;
/// anything else announced, by this store or by anyone who may connect, only says "read this item" (see
/// ``Announcement``).
///
/// ## Database roles
/// `LISTEN` and `NOTIFY` need no right on any table, and PostgreSQL grants `CONNECT` on a new database to
/// `PUBLIC`: every role that may log in can hear the announcements and send its own. The store's security does
/// not rest on that channel (announcements are authenticated, replays refused by their generation, and a forged
/// one costs a read), yet a deployment should still give each application a role of its own and close the
/// database to the rest: `REVOKE CONNECT ON DATABASE sessions FROM PUBLIC; GRANT CONNECT ON DATABASE sessions TO
/// app_role;`.
///
/// ## Never blocking
/// Every call suspends, never blocks a thread, and is answered within ``Configuration/callTimeout``: a
/// database that stops answering (frozen, partitioned) fails the call as
/// ``SecureStore/SecureStoreError/Code/unavailable`` at that deadline, and its connection is closed. Sessions
/// whose tokens are valid in memory are served meanwhile, since they need no call.
///
/// ## Schema
/// Call ``migrate()`` once at start-up (or from a deployment command) before using the store, or run a
/// ``Migrations`` service in the service group and wait for its ``Migrations/ready()``; both are safe to run from
/// many instances at once. See ``migrate()`` for the tables.
///
/// ## Errors
/// - PostgreSQL unreachable, restarting, or a lock held past the lock timeout:
///   ``SecureStoreError/Code/unavailable`` (retryable; keep the session).
/// - A row that fails authentication or names an unknown key id: ``SecureStoreError/Code/corrupted``, with
///   the key id and what to do; nothing else is touched.
/// - Messages never contain a stored value, an item's key, key material or the database password.
public final class PostgresSessionStore: AsyncSecureStore, SecureStoreChangeFeed, Service, CustomStringConvertible {
    /// The service whose items this store holds.
    public let service: String
    /// Where the database is. Its description has no password.
    ///
    /// For a store over the application's client, it is made from the listener's settings: the address, role,
    /// password, database and TLS mode (``TLS/require`` for any mode that insists on TLS) for descriptions, and
    /// the deadlines given; its pool settings are not the client's.
    public let configuration: Configuration

    let sealer: RowSealer
    /// The pool every call takes a connection from: the store's own, or the application's.
    let client: PostgresClient
    /// Whether ``client`` is the store's own, for ``run()`` to run (the application runs its own).
    let ownsClient: Bool
    /// PostgresNIO's settings for a single connection, for the change listener (outside the pool) and for
    /// finding out why the pool hands out no connection.
    let connectionConfiguration: PostgresConnection.Configuration
    let logger: Logger
    /// Names this store object in its NOTIFY payloads, so that ``changes()`` can mark its own writes.
    let writerID = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    let statements = Atomic<Int>(0)
    /// Why the pool hands out no connection, found once for all waiting calls.
    let probe = ConnectionProbe()
    let metrics: StoreMetrics
    /// `leaseIfDue` calls, sent together when they wait: one statement out at a time (it never waits for a row
    /// lock), each answered with its read or `nil` when its row was held.
    let leaseReads: StatementBatcher<LeaseRequest, ByteBuffer, LeasedRead?>
    /// Conditional writes over a row, sent together when they wait, as the reads are: each answered with its
    /// outcome, or `nil` when its row was held.
    let updates: StatementBatcher<UpdateRequest, ByteBuffer, VersionedWrite?>
    /// How many batched reads or writes met their row held by another statement and went into the next batch.
    let busyRowRetries = Atomic<Int>(0)
    /// ``busyRowRetries`` now, for tests that count statements.
    var busyRowRetryCount: Int { busyRowRetries.load(ordering: .relaxed) }
    /// How many batched reads met their row held in the next batch too, and were sent again alone.
    let heldRowReads = Atomic<Int>(0)
    /// ``heldRowReads`` now, for tests that count statements.
    var heldRowReadCount: Int { heldRowReads.load(ordering: .relaxed) }
    /// How many batched writes met their row held in the next batch too, and were sent again alone.
    let heldRowWrites = Atomic<Int>(0)
    /// ``heldRowWrites`` now, for tests that count statements.
    var heldRowWriteCount: Int { heldRowWrites.load(ordering: .relaxed) }
    /// How many statements confirmed the commit of a write before it was reported done (`executeCommitted`).
    let commitChecks = Atomic<Int>(0)
    /// Confirms announced writes by their own announcements while a ``changes()`` listener is up.
    let commitWatch = CommitWatch()
    /// How many writes were confirmed by their own announcement instead of a statement.
    let announcedCommits = Atomic<Int>(0)

    /// How many SQL statements this store has sent, each one round trip (`BEGIN` and `COMMIT` included, and the
    /// ``commitCheckCount`` statements that confirm a write's commit): for monitoring, and for tests that check a
    /// path makes no round trip.
    public var statementCount: Int { statements.load(ordering: .relaxed) }

    /// How many of ``statementCount`` confirmed that a write was committed before it was reported done: a write
    /// outside a transaction is committed only after PostgreSQL has answered it, so one more round trip follows
    /// each write that changed something.
    public var commitCheckCount: Int { commitChecks.load(ordering: .relaxed) }

    /// How many writes were reported done once their own announcement came back to one of this store's
    /// ``changes()`` listeners (PostgreSQL delivers it only after the commit), with no statement to confirm them.
    public var announcedCommitCount: Int { announcedCommits.load(ordering: .relaxed) }

    /// The NOTIFY channel every write and delete is announced on.
    public static let notificationChannel = "sessionkit_items"

    /// The store over `client`, which it runs in ``run()`` only when `ownsClient`.
    init(
        service: String, configuration: Configuration, client: PostgresClient, ownsClient: Bool,
        listener: PostgresConnection.Configuration, keys: Keys, logger: Logger, metrics: (any MetricsFactory)?
    ) throws(SecureStoreError) {
        guard !service.isEmpty else {
            throw SecureStoreError(code: .invalidArgument, message: "the service name is empty; pass a non-empty one")
        }
        self.service = service
        self.configuration = configuration
        self.sealer = RowSealer(keys: keys, service: service)
        self.logger = logger
        self.metrics = StoreMetrics(factory: metrics ?? MetricsSystem.factory)
        self.connectionConfiguration = listener
        // A statement out at a time, at most 100 calls in it; calls behind one linger up to 50 ms, and so does a
        // call that finds none out if one went out less than 20 ms ago (see `Benchmarks/server.sh`).
        self.leaseReads = StatementBatcher(
            maxInFlight: 1, maxBatch: 100, linger: .milliseconds(50), busyWithin: .milliseconds(20), key: \.digest)
        self.updates = StatementBatcher(
            maxInFlight: 1, maxBatch: 100, linger: .milliseconds(50), busyWithin: .milliseconds(20),
            key: \.write.digest)
        self.client = client
        self.ownsClient = ownsClient
    }

    /// Runs what the store owns until the task is cancelled or the service group shuts down.
    ///
    /// A store made from a ``Configuration`` runs its connection pool here; calls made without it wait for it
    /// until their deadline. A store over the application's `PostgresClient` owns no pool: the application runs
    /// its client, and this only waits for the shutdown (so that the store can sit in a service group like any
    /// service), never touching the client.
    public func run() async throws {
        if ownsClient {
            await client.run()
        } else {
            try? await gracefulShutdown()
        }
    }

    /// The service and the database, without the password.
    public var description: String {
        "PostgresSessionStore(service: \(service), database: \(configuration))"
    }

    // MARK: AsyncSecureStore

    /// Returns the data stored under `key`, or `nil` when there is none.
    public func data(forKey key: String) async throws(SecureStoreError) -> Data? {
        let digest = try Self.digest(key)
        let rows = try await call("reading an item") { [self] connection in
            try await execute(
                connection,
                "SELECT sealed, key_id FROM sessionkit_items WHERE service = \(service) AND key_digest = \(digest)")
        }
        guard let row = rows.first else { return nil }
        return try openValue(row, digest: digest)
    }

    /// Stores `data` under `key`, replacing any earlier value, and announces the change (without the value: readers
    /// read it).
    public func setData(_ data: Data, forKey key: String) async throws(SecureStoreError) {
        let digest = try Self.digest(key)
        let digestData = Data(digest.readableBytesView)
        let sealedKey = try sealer.seal(Data(key.utf8), purpose: .itemKey, keyDigest: digestData)
        let sealed = try sealer.seal(data, purpose: .itemValue, keyDigest: digestData)
        let keyID = sealer.keys.current.id
        let lock = lockKey(digest)
        // The new generation is not known before the statement runs, so the announcement cannot be sealed for it:
        // it says "read it", marked as this store's own.
        let payload = notification(digest, own: true)
        // One statement, so one implicit transaction: the advisory lock makes it wait for an `update` of the
        // same key in progress (which may be about to insert the row) instead of being overwritten by it.
        try await call("writing an item") { [self] connection in
            _ = try await executeCommitted(
                connection,
                """
                WITH lock AS (SELECT pg_advisory_xact_lock(\(lock))),
                written AS (
                    INSERT INTO sessionkit_items (service, key_digest, key_sealed, sealed, key_id)
                    SELECT \(service), \(digest), \(sealedKey), \(sealed), \(keyID) FROM lock
                    ON CONFLICT (service, key_digest) DO UPDATE SET key_sealed = EXCLUDED.key_sealed,
                        sealed = EXCLUDED.sealed, key_id = EXCLUDED.key_id,
                        due_at = NULL, lease_owner = NULL, lease_until = NULL,
                        generation = sessionkit_items.generation + 1, updated_at = now()
                    RETURNING generation)
                SELECT pg_notify(\(Self.notificationChannel), \(payload)) FROM written
                """)
        }
    }

    /// Removes the item under `key` and announces it. Removing a missing item is not an error.
    public func deleteItem(forKey key: String) async throws(SecureStoreError) {
        let digest = try Self.digest(key)
        let payload = notification(digest, own: true)
        try await call("deleting an item") { [self] connection in
            _ = try await executeCommitted(
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
    public func deleteAll() async throws(SecureStoreError) {
        let payload = service + ":*"
        try await call("deleting the service's items") { [self] connection in
            _ = try await executeCommitted(
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
    public func keys() async throws(SecureStoreError) -> [String] {
        let rows = try await call("listing the service's keys") { [self] connection in
            try await execute(
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
                what: "the key of row \(Hex.string(digestData).prefix(16))… of service '\(service)'"
            )
            guard let key = String(data: plain, encoding: .utf8), Self.digestData(key) == digestData else {
                throw SecureStoreError(
                    code: .corrupted,
                    message: "the key of row \(Hex.string(digestData).prefix(16))… of service '\(service)' does not "
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
    nonisolated(nonsending) public func update(forKey key: String, _ transform: (Data?) throws -> Data?)
        async throws -> Data?
    {
        try await updateItem(forKey: key, transform)
    }

    /// The store keeps a journal, in `sessionkit_journal`.
    public var keepsJournal: Bool { true }
}
