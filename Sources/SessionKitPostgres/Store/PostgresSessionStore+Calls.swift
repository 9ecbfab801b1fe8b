import Crypto
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import SecureStore
import SessionKitSupport
import Synchronization
import Tracing

extension PostgresSessionStore {
    /// Runs `body` with a connection of the pool, within ``Configuration/callTimeout``, mapping database
    /// errors to ``SecureStore/SecureStoreError``. At the deadline the caller gets
    /// ``SecureStore/SecureStoreError/Code/unavailable`` and the connection in use is closed, which ends
    /// whatever it was waiting for (an uncommitted transaction is rolled back by the server).
    func call<T: Sendable>(
        _ action: String, within limit: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(SecureStoreError) -> T {
        let operation = StoreMetrics.operation(action)
        let span = startSpan("sessionkit.store", ofKind: .client)
        span.attributes["db.system.name"] = "postgresql"
        span.attributes["db.operation.name"] = operation
        defer { span.end() }
        let start = ContinuousClock.now
        do throws(SecureStoreError) {
            let result = try await deadlined(action, within: limit, body)
            metrics.succeeded(operation, after: ContinuousClock.now - start)
            return result
        } catch {
            metrics.failed(operation, error, after: ContinuousClock.now - start)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.attributes["sessionkit.error.code"] = "\(error.code)"
            throw error
        }
    }

    /// ``call(_:within:_:)`` without the counting.
    private func deadlined<T: Sendable>(
        _ action: String, within limit: Duration?,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(SecureStoreError) -> T {
        let inUse = HeldConnection(sharedClient: ownsClient ? nil : client)
        let gaveUp = Atomic<Bool>(false)
        let work = CallDeadline { [client] in
            // A connection this store closed (at a deadline that gave up on it) may still be handed out while it
            // closes; a call that meets one fails before the server sees anything, so it takes another.
            for attempt in 0..<5 {
                // The pool drops a closed connection once it hears of the close: give it a moment.
                if attempt > 0 { try await Task.sleep(for: .milliseconds(20 << attempt)) }
                do {
                    let result = try await client.withConnection { connection -> T? in
                        guard !connection.isClosed else { return nil }
                        return try await inUse.hold(connection, body)
                    }
                    if let result { return result }
                } catch  where PostgresErrors.closedByThisClient(error) && !gaveUp.load(ordering: .relaxed) {
                    continue
                }
            }
            throw SecureStoreError(
                code: .unavailable,
                message: "PostgreSQL's connections kept closing while \(action); keep the session and try again")
        }
        let limit = limit ?? configuration.callTimeout
        let start = ContinuousClock.now
        // First the wait for a connection, bounded by the acquire timeout. A call still without one then finds
        // out why: a server that refuses, or refuses the role or the certificate, fails it at once; a pool that is
        // only busy, or a server slow to accept, lets it wait on, to the call's deadline.
        let acquireLimit = min(configuration.acquireTimeout, limit)
        var outcome = await work.result(within: acquireLimit)
        if outcome == nil, inUse.isEmpty {
            let remaining = limit - (ContinuousClock.now - start)
            if let failure = await connectionFailure(
                while: action, within: min(configuration.connectTimeout, remaining))
            {
                gaveUp.store(true, ordering: .relaxed)
                work.cancel()
                throw failure
            }
            outcome = await work.result(within: limit - (ContinuousClock.now - start))
            if outcome == nil, inUse.isEmpty {
                gaveUp.store(true, ordering: .relaxed)
                work.cancel()
                let pool =
                    ownsClient
                    ? "all \(configuration.maximumConnections) were busy"
                    : "all connections of the application's client were busy"
                throw SecureStoreError(
                    code: .unavailable,
                    message: "no connection to \(configuration) could be had within \(limit) while \(action) of "
                        + "service '\(service)': \(pool), or the server did not answer; keep the session and try "
                        + "again, or raise maximumConnections"
                )
            }
        }
        if outcome == nil {
            outcome = await work.result(within: limit - (ContinuousClock.now - start))
        }
        guard let result = outcome else {
            gaveUp.store(true, ordering: .relaxed)
            work.cancel()
            inUse.close()
            throw SecureStoreError(
                code: .unavailable,
                message: "PostgreSQL did not answer within \(limit) while \(action) of service '\(service)'; "
                    + "keep the session and try again"
            )
        }
        do {
            return try result.get()
        } catch {
            throw PostgresErrors.map(error, while: action + " of service '\(service)'")
        }
    }

    /// Why no connection could be had, when the server gives a reason: the pool keeps its connection errors to
    /// itself, so one connection of the store's own, outside the pool, is tried for at most `limit`, one at a time
    /// for all waiting calls (``ConnectionProbe``). Its error is returned (a server that is down, a wrong
    /// password, a refused certificate); `nil` when it connects (the pool is only busy) or gets no answer in time
    /// (the server is slow or hung: the call's deadline decides).
    private func connectionFailure(while action: String, within limit: Duration) async -> SecureStoreError? {
        let connectTimeout = configuration.connectTimeout
        return await probe.failure(within: limit) { [self] in
            await probeConnection(while: action, within: connectTimeout)
        }
    }

    /// One probe: a connection outside the pool, closed at once, tried for at most `limit`.
    private func probeConnection(while action: String, within limit: Duration) async -> SecureStoreError? {
        let probe = CallDeadline { [connectionConfiguration, logger] in
            let connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: connectionConfiguration, id: 0,
                logger: logger)
            try? await connection.close()
        }
        switch await probe.result(within: limit) {
        case .success: return nil
        case .failure(let error):
            return PostgresErrors.map(error, while: "connecting to \(configuration) while \(action)")
        case nil:
            probe.cancel()
            return nil
        }
    }

    /// Runs one statement on `connection` and returns its rows.
    func execute(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> [PostgresRow] {
        statements.add(1, ordering: .relaxed)
        return try await connection.query(query, logger: logger).collect()
    }

    /// Runs one prepared statement on `connection` (preparing it on the connection's first use) and returns its
    /// rows.
    func execute<Statement: PostgresPreparedStatement>(_ connection: PostgresConnection, _ statement: Statement)
        async throws -> [PostgresRow] where Statement.Row == PostgresRow
    {
        statements.add(1, ordering: .relaxed)
        var rows: [PostgresRow] = []
        for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
        return rows
    }

    /// Opens the `sealed, key_id` of a row of items (or, for `.journalValue`, of journal entries).
    func openValue(_ row: PostgresRow, digest: ByteBuffer, purpose: RowSealer.Purpose = .itemValue)
        throws(SecureStoreError) -> Data
    {
        let (sealed, keyID) = try decodeRow(row, as: (ByteBuffer, String).self)
        let digestData = Data(digest.readableBytesView)
        let what = purpose == .journalValue ? "the journal entry" : "the item"
        return try sealer.open(
            Data(sealed.readableBytesView),
            keyID: keyID,
            purpose: purpose,
            keyDigest: digestData,
            what: "\(what) in row \(Hex.string(digestData).prefix(16))… of service '\(service)'"
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

    /// The NOTIFY payload for the item whose key has `digest`: `<service>:<digest>`, and `:<writer>` when
    /// `own` (so that this store's ``changes()`` marks it as its own write).
    func notification(_ digest: ByteBuffer, own: Bool) -> String {
        let base = service + ":" + Hex.string(Data(digest.readableBytesView))
        return own ? base + ":" + writerID : base
    }

    /// The NOTIFY payload of a conditional write of this store's that makes the row's generation `generation`
    /// (see ``Announcement``), sealed with `value` when it fits.
    func announcement(_ digest: Data, generation: UInt64, value: Data) throws(SecureStoreError) -> Announcement {
        try Announcement(
            service: service, digest: digest, writer: writerID, generation: generation, value: value, sealer: sealer)
    }

    /// The first generation of a row this store inserts: the clock's microseconds, so that a row deleted and
    /// written again does not go through an earlier row's generations again (whose announcements may be replayed).
    static func firstGeneration() -> UInt64 {
        max(UInt64(max(Date().timeIntervalSince1970, 0) * 1_000_000), 1)
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
}
