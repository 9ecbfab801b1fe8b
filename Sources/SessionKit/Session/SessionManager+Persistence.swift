#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SessionManager {
    /// The cached record, or the stored one (then cached).
    func currentRecord() async throws(SessionKitError) -> SessionRecord {
        if let cached = cache.withLock({ $0 }) { return cached }
        return try await loadRecord()
    }

    /// The cached record, or the one a synchronous store holds (then cached); `nil` when neither is at hand
    /// (an asynchronous store, not read yet).
    nonisolated func currentRecordWithoutSuspending() throws(SessionKitError) -> SessionRecord? {
        if let cached = cache.withLock({ $0 }) { return cached }
        return try coordinator.readWithoutSuspending()
    }

    /// Reads the record from the store, caches it, and publishes the state it implies.
    @discardableResult
    func loadRecord() async throws(SessionKitError) -> SessionRecord {
        try await coordinator.read()
    }

    /// A first call's read: where the store can, the record is read and, when its access token expires within
    /// `minTTL` and no renewal is under way, leased for a renewal by this manager in the same round trip. So
    /// several instances meeting an expired session at once send one statement each, and one of them renews it.
    func loadRecordLeasingIfDue(minTTL: TimeInterval) async throws(SessionKitError) -> LeasedLoad {
        let now = clock.now()
        return try await coordinator.readLeasingIfDue(
            dueBy: now.addingTimeInterval(minTTL), owner: ownerID, until: now.addingTimeInterval(leaseSeconds))
    }

    /// Atomically transforms the stored record and caches the result, through ``coordinator``
    /// (``SessionCoordinator/update(_:)``). The transform sees the stored record; returning `nil` leaves the store
    /// untouched. A record written moves its generation on by one.
    ///
    /// - Returns: The record now stored: the transform's result, or the unchanged stored record.
    @discardableResult
    func updateRecord(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> (record: SessionRecord, changed: Bool)
    {
        try await coordinator.update { stored throws(SessionKitError) in
            guard var next = try transform(stored) else { return nil }
            next.generation = stored.generation + 1
            return next
        }
    }
}
