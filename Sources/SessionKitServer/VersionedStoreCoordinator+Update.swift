import SecureStore
import SessionKit

extension VersionedStoreCoordinator {
    /// Transforms the record with conditional writes.
    ///
    /// The transform runs on the record held, and the result is written only if the store still holds the version
    /// it was read at: one round trip. A refused write brings the stored record back with it, and the transform
    /// runs again on that. A transform that declines to write on the record held is asked again about the stored
    /// record, read for it, unless the store's announcements keep the record held current. After
    /// ``maximumRefusals`` refusals in a row the call fails with a retryable error, having written nothing.
    nonisolated(nonsending) func update(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> (record: SessionRecord, changed: Bool)
    {
        var candidate = held.withLock { $0 }
        // Whether a transform that declines on `candidate` is right to: it came from the store during this update
        // (a read or a refusal), or the store's announcements are being followed, which keep the record held as
        // new as the store's but for writes committed this very moment (and those move the generation on, which
        // the transforms check).
        var confirmed = followsAnnouncements
        var refusals = 0
        while refusals < Self.maximumRefusals {
            guard let current = candidate, let version = current.storeVersion else {
                candidate = try await read()
                confirmed = true
                continue
            }
            guard var next = try transform(current) else {
                if confirmed { return (current, false) }
                candidate = nil
                continue
            }
            let encoded = try next.storedData()
            let outcome: VersionedWrite
            do {
                outcome = try await store.replace(forKey: key, ifVersion: version, with: encoded, dueAt: next.dueAt)
            } catch {
                throw held.storeFailure(error)
            }
            switch outcome {
            case .written(let written):
                next.storeVersion = written
                _ = holdNewest(next)
                return (next, true)
            case .refused(let stored?):
                var record = try SessionRecord.stored(stored.data)
                record.takeStoreLease(stored.lease)
                record.storeVersion = stored.version
                (candidate, confirmed) = (holdNewest(record), true)
            case .refused(nil):
                candidate = nil
            }
            refusals += 1
        }
        throw SessionKitError(
            code: .storeUnavailable,
            message: "the session's record changed \(Self.maximumRefusals) times while this write was tried again; "
                + "nothing was written and the session is kept; try again")
    }
}
