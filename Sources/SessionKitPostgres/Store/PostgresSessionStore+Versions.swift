public import Foundation
import NIOCore
import PostgresNIO
public import SecureStore
import SessionKitSupport
import Synchronization

extension PostgresSessionStore: VersionedSecureStore {
    /// The item under `key`, its row's generation (`0` when there is no row) and lease: one statement.
    public func versionedData(forKey key: String) async throws(SecureStoreError) -> VersionedItem {
        let digest = try Self.digest(key)
        let rows = try await call("reading an item") { [self] connection in
            try await execute(connection, PreparedStatements.ReadItem(service: service, digest: digest))
        }
        guard let row = rows.first else { return VersionedItem(data: nil, version: 0) }
        return try versionedItem(row, digest: digest)
    }

    /// Reads the item and leases it when it is due by `threshold` and free, in one statement (see
    /// ``PreparedStatements/LeaseIfDue``). The lease is not announced: the write that ends it is.
    ///
    /// Calls made while another is out go out together, in one statement for all of them (``StatementBatcher``,
    /// ``PreparedStatements/LeaseIfDueBatch``): a renewal storm, where every instance meets thousands of expired
    /// sessions at once, sends a statement per batch instead of one per session. A batch never waits for a row
    /// lock; a session whose row is held right now goes into the next batch, and if it is held then too, it is
    /// read again alone, and only its caller waits.
    public func leaseIfDue(forKey key: String, dueBy threshold: Date, lease: ItemLease)
        async throws(SecureStoreError) -> LeasedRead
    {
        let request = LeaseRequest(digest: try Self.digest(key), threshold: threshold, lease: lease)
        if let read = try await submitted(request, to: leaseReads, send: { [self] in await sendLeaseReads($0) }) {
            return read
        }
        heldRowReads.add(1, ordering: .relaxed)
        let rows = try await call("reading a held item") { [self] connection in
            try await executeCommitted(
                connection,
                PreparedStatements.LeaseIfDue(
                    service: service, digest: request.digest, threshold: request.threshold,
                    owner: request.lease.owner, until: request.lease.until),
                wrote: { rows in try rows.contains { try Self.flag($0, at: 5) } })
        }
        return try leasedRead(rows.first, digest: request.digest)
    }

    /// `request`'s answer from a batch of `batcher`, or `nil` when its row was held twice. A row held now is
    /// mostly another statement's for a moment (another instance's batch): it goes into the next batch once, and
    /// only then is its caller told to send it alone.
    private func submitted<Request, Key, Answer>(
        _ request: Request, to batcher: StatementBatcher<Request, Key, Answer?>,
        send: @escaping StatementBatcher<Request, Key, Answer?>.Send
    ) async throws(SecureStoreError) -> Answer? {
        if let answer = try await batcher.submit(request, send: send) { return answer }
        busyRowRetries.add(1, ordering: .relaxed)
        return try await batcher.submit(request, send: send)
    }

    /// Sends `requests` in one statement and answers each, in their order: `nil` for one whose row was held.
    private func sendLeaseReads(_ requests: [LeaseRequest]) async -> [Result<LeasedRead?, SecureStoreError>] {
        let batch = BatchOrder(requests, digest: \.digest)
        let sorted = batch.sorted
        do throws(SecureStoreError) {
            // Confirmed committed when it leased anything: a lease reported taken is acted on (a grant is sent).
            let rows = try await call("reading items") { [self] connection in
                try await executeCommitted(
                    connection,
                    PreparedStatements.LeaseIfDueBatch(
                        service: service, digests: sorted.map(\.digest), thresholds: sorted.map(\.threshold),
                        owners: sorted.map(\.lease.owner), untils: sorted.map(\.lease.until)),
                    wrote: { rows in try rows.contains { try Self.flag($0, at: 5) } })
            }
            var answers = [Result<LeasedRead?, SecureStoreError>](
                repeating: .success(LeasedRead(item: VersionedItem(data: nil, version: 0), outcome: .notLeased)),
                count: requests.count)
            for row in rows {
                let (_, _, _, _, _, _, position, busy) = try decodeRow(
                    row, as: (ByteBuffer?, String?, Int64, String?, Date?, Bool, Int64, Bool).self)
                let index = try batch.index(ofPosition: position, what: "read")
                answers[index] =
                    busy
                    ? .success(nil)
                    : Result { () throws(SecureStoreError) in try leasedRead(row, digest: requests[index].digest) }
            }
            return answers
        } catch {
            return Array(repeating: .failure(error), count: requests.count)
        }
    }

    /// The boolean in `column` of `row` (0-based): whether a lease was taken, or a write made.
    static func flag(_ row: PostgresRow, at column: Int) throws -> Bool {
        try row.makeRandomAccess()[column].decode(Bool.self)
    }

    /// A row of ``PreparedStatements/LeaseIfDue`` (or of the batch), opened; no row: no item. A row without its
    /// sealed value is due under another owner's live lease: its version and lease only.
    private func leasedRead(_ row: PostgresRow?, digest: ByteBuffer) throws(SecureStoreError) -> LeasedRead {
        guard let row else { return LeasedRead(item: VersionedItem(data: nil, version: 0), outcome: .notLeased) }
        let (sealed, _, generation, owner, until, leased) = try decodeRow(
            row, as: (ByteBuffer?, String, Int64, String?, Date?, Bool).self)
        guard sealed != nil else {
            guard let lease = Self.lease(owner: owner, until: until) else {
                throw SecureStoreError(
                    code: .corrupted,
                    message: "the database returned an item without its value and without a lease, which the "
                        + "store's statements never do; check that sessionkit_items was not altered by hand")
            }
            return LeasedRead(
                item: VersionedItem(data: nil, version: UInt64(generation), lease: lease), outcome: .heldElsewhere)
        }
        return LeasedRead(item: try versionedItem(row, digest: digest), outcome: leased ? .leased : .notLeased)
    }

    /// A row that starts with `sealed, key_id, generation, lease_owner, lease_until`, opened.
    func versionedItem(_ row: PostgresRow, digest: ByteBuffer) throws(SecureStoreError) -> VersionedItem {
        let (_, _, generation, owner, until) = try decodeRow(
            row, as: (ByteBuffer, String, Int64, String?, Date?).self)
        return VersionedItem(
            data: try openValue(row, digest: digest), version: UInt64(generation),
            lease: Self.lease(owner: owner, until: until))
    }

    /// The lease in a row's `lease_owner` and `lease_until` columns; `nil` unless both are set.
    private static func lease(owner: String?, until: Date?) -> ItemLease? {
        guard let owner, let until else { return nil }
        return ItemLease(owner: owner, until: until)
    }

    /// Writes `data` (or deletes the item, for `nil`) only if its row is still at generation `version` (`0`: no
    /// row), in one statement with its NOTIFY and no lock of the store's own. The write sets the row's `due_at` and
    /// ends its lease. A refused update returns the row as it is now, from the same statement, unless the row
    /// changed while the update waited for it (the statement's snapshot predates that change).
    ///
    /// Updates made while another is out go out together, as the reads of ``leaseIfDue(forKey:dueBy:lease:)`` do
    /// (``PreparedStatements/UpdateItemBatch``), and like them never wait for a row lock in a batch: a row held
    /// then goes into the next batch, and if it is held then too, it is written alone, waiting for the row.
    public func replace(forKey key: String, ifVersion version: UInt64, with data: Data?, dueAt: Date?)
        async throws(SecureStoreError) -> VersionedWrite
    {
        let digest = try Self.digest(key)
        let expected = Int64(version)
        guard let data else {
            let payload = notification(digest, own: true)
            let rows = try await call("replacing an item") { [self] connection in
                try await executeCommitted(
                    connection,
                    """
                    WITH deleted AS (
                        DELETE FROM sessionkit_items
                        WHERE service = \(service) AND key_digest = \(digest) AND generation = \(expected)
                        RETURNING 1)
                    SELECT pg_notify(\(Self.notificationChannel), \(payload)) FROM deleted
                    """, wrote: { !$0.isEmpty })
            }
            return rows.isEmpty ? .refused(current: nil) : .written(version: 0)
        }
        let digestData = Data(digest.readableBytesView)
        let sealed = try sealer.seal(data, purpose: .itemValue, keyDigest: digestData)
        // The key is sealed again too: both are under the current key, which the row's key id names.
        let sealedKey = try sealer.seal(Data(key.utf8), purpose: .itemKey, keyDigest: digestData)
        let keyID = sealer.keys.current.id
        // The generation the write gives the row, known before it is sent, so its announcement is sealed for it.
        let generation = version == 0 ? Self.firstGeneration() : version + 1
        let write = PreparedStatements.ItemWrite(
            service: service, digest: digest, sealedKey: sealedKey, sealed: sealed, keyID: keyID,
            announcement: try announcement(digestData, generation: generation, value: data), dueAt: dueAt)
        // Confirmed by its own announcement while a listener is up (see CommitWatch), else by a statement.
        let ticket = commitWatch.expect(digest: Hex.string(digestData))
        defer { ticket.map(commitWatch.finish) }
        guard version != 0 else {
            let rows = try await call("replacing an item") { [self] connection in
                try await executeCommitted(
                    connection, PreparedStatements.InsertItem(write: write, generation: Int64(generation)),
                    announcedBy: ticket
                ) {
                    rows in try rows.first.map { UInt64(try $0.decode(Int64.self)) }
                }
            }
            guard let row = rows.first else { return .refused(current: nil) }
            let (generation) = try decodeRow(row, as: (Int64).self)
            return .written(version: UInt64(generation))
        }
        let request = UpdateRequest(write: write, expected: expected, ticket: ticket)
        if let written = try await submitted(request, to: updates, send: { [self] in await sendUpdates($0) }) {
            return written
        }
        heldRowWrites.add(1, ordering: .relaxed)
        return try await updateAlone(request)
    }
}
