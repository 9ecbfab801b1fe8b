import Foundation
import NIOCore
import PostgresNIO
import SecureStore

extension PostgresSessionStore {
    /// Sends `requests` in one statement (``PreparedStatements/UpdateItemBatch``, sorted by digest, which never
    /// waits for a row lock) and answers each, in their order: `nil` for one whose row was held.
    func sendUpdates(_ requests: [UpdateRequest]) async -> [Result<VersionedWrite?, SecureStoreError>] {
        let batch = BatchOrder(requests, digest: \.write.digest)
        let sorted = batch.sorted
        do throws(SecureStoreError) {
            // Reported done once committed: confirmed by the announcement of any row it wrote, else a statement.
            let rows = try await call("replacing items") { [self] connection in
                try await executeCommitted(
                    connection,
                    PreparedStatements.UpdateItemBatch(
                        service: service, writes: sorted.map(\.write), expected: sorted.map(\.expected))
                ) { rows in
                    for row in rows where try Self.flag(row, at: 5) {
                        let columns = row.makeRandomAccess()
                        let position = Int(try columns[6].decode(Int64.self))
                        guard position >= 1, position <= sorted.count else { continue }
                        return (sorted[position - 1].ticket, UInt64(try columns[2].decode(Int64.self)))
                    }
                    return nil
                }
            }
            // No row for a request: deleted, or deleted and written again since; a read tells.
            var answers = [Result<VersionedWrite?, SecureStoreError>](
                repeating: .success(.refused(current: nil)), count: requests.count)
            for row in rows {
                let (_, _, generation, _, _, written, position, busy) = try decodeRow(
                    row, as: (ByteBuffer?, String?, Int64, String?, Date?, Bool, Int64, Bool).self)
                let index = try batch.index(ofPosition: position, what: "write")
                if written {
                    answers[index] = .success(.written(version: UInt64(generation)))
                } else if busy {
                    answers[index] = .success(nil)
                } else {
                    answers[index] = Result { () throws(SecureStoreError) in
                        .refused(current: try versionedItem(row, digest: requests[index].write.digest))
                    }
                }
            }
            return answers
        } catch {
            return Array(repeating: .failure(error), count: requests.count)
        }
    }

    /// One conditional write over a row in ``PreparedStatements/UpdateItem``, which waits for the row when another
    /// statement holds it.
    func updateAlone(_ request: UpdateRequest) async throws(SecureStoreError) -> VersionedWrite {
        let rows = try await call("replacing an item") { [self] connection in
            try await executeCommitted(
                connection, PreparedStatements.UpdateItem(write: request.write, expected: request.expected),
                announcedBy: request.ticket
            ) { rows in
                guard let row = rows.first, try Self.flag(row, at: 5) else { return nil }
                return UInt64(try row.makeRandomAccess()[2].decode(Int64.self))
            }
        }
        // No row in the snapshot: deleted, or deleted and written again since; a read tells.
        guard let row = rows.first else { return .refused(current: nil) }
        let (_, _, generation, _, _, written) = try decodeRow(
            row, as: (ByteBuffer?, String?, Int64, String?, Date?, Bool).self)
        if written { return .written(version: UInt64(generation)) }
        // The snapshot's row, at the version expected: it changed after the snapshot, and that is all we know.
        guard generation != request.expected else { return .refused(current: nil) }
        return .refused(current: try versionedItem(row, digest: request.write.digest))
    }
}
