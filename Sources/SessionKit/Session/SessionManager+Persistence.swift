import SecureStore
import Synchronization

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
        guard let synchronousStore else { return nil }
        let data: Data?
        do {
            data = try synchronousStore.data(forKey: storeKey)
        } catch {
            throw storeFailure(error)
        }
        return try cacheLoaded(data)
    }

    /// Reads the record from the store, caches it, and publishes the state it implies.
    @discardableResult
    func loadRecord() async throws(SessionKitError) -> SessionRecord {
        if let versioned = store as? any VersionedSecureStore {
            let item: VersionedItem
            do {
                item = try await versioned.versionedData(forKey: storeKey)
            } catch {
                throw storeFailure(error)
            }
            return try cacheLoaded(item)
        }
        let data: Data?
        do {
            data = try await store.data(forKey: storeKey)
        } catch {
            throw storeFailure(error)
        }
        return try cacheLoaded(data)
    }

    /// What ``loadRecordLeasingIfDue(minTTL:)`` found.
    enum LeasedLoad {
        /// The session was due for renewal and this manager holds the lease on it now.
        case leased(SessionRecord)
        /// Anything else: the record as stored, with whatever lease is on it.
        case read(SessionRecord)
        /// The session was due and another instance's live lease is on it, at this store version; the store
        /// did not send the record (``SecureStore/LeasedRead/Outcome/heldElsewhere``).
        case heldElsewhere(version: UInt64)
    }

    /// A first call's read: with a versioned store, the record is read and, when its access token expires within
    /// `minTTL` and no renewal is under way, leased for a renewal by this manager in the same round trip. So
    /// several instances meeting an expired session at once send one statement each, and one of them renews it.
    func loadRecordLeasingIfDue(minTTL: TimeInterval) async throws(SessionKitError) -> LeasedLoad {
        guard let versioned = store as? any VersionedSecureStore else { return .read(try await loadRecord()) }
        let now = clock.now()
        let read: LeasedRead
        do {
            read = try await versioned.leaseIfDue(
                forKey: storeKey, dueBy: now.addingTimeInterval(minTTL),
                lease: SessionRecord.storeLease(owner: ownerID, until: now.addingTimeInterval(leaseSeconds)))
        } catch {
            throw storeFailure(error)
        }
        switch read.outcome {
        case .heldElsewhere:
            noteKnownVersion(read.item.version)
            return .heldElsewhere(version: read.item.version)
        case .leased: return .leased(try cacheLoaded(read.item))
        case .notLeased: return .read(try cacheLoaded(read.item))
        }
    }

    /// Decodes a record just read from a versioned store, with the lease kept beside it, caches it unless a newer
    /// one was announced meanwhile, and publishes the state it implies.
    private nonisolated func cacheLoaded(_ item: VersionedItem) throws(SessionKitError) -> SessionRecord {
        var record = try Self.decode(item.data)
        record.takeStoreLease(item.lease)
        return try cacheLoaded(record, version: item.version)
    }

    /// Decodes a record just read from a store that does not version its items, caches it, and publishes the state
    /// it implies.
    private nonisolated func cacheLoaded(_ data: Data?) throws(SessionKitError) -> SessionRecord {
        try cacheLoaded(try Self.decode(data), version: nil)
    }

    /// Caches a record just read (at `version`, in a versioned store), and publishes the state it implies.
    private nonisolated func cacheLoaded(_ decoded: SessionRecord, version: UInt64?) throws(SessionKitError)
        -> SessionRecord
    {
        var record = decoded
        record.storeVersion = version
        if version != nil {
            record = cacheNewest(record)
        } else {
            cache.withLock { $0 = record }
        }
        if record.credentials == nil {
            states.publish(.signedOut)
        }
        return record
    }

    /// Atomically transforms the stored record and caches the result. The transform sees the stored
    /// record; returning `nil` leaves the store untouched.
    ///
    /// With a versioned store, the transform runs on the record in memory and the result is written only if the
    /// store still holds the version it was read at: one round trip. A refused write brings the stored record
    /// back with it, and the transform runs again on that, so a lease that another instance took first costs
    /// nothing more. A transform that declines to write on the record in memory is asked again about the stored
    /// record, read for it, unless the store's announcements keep the record in memory current. A versioned store
    /// is only ever written this way: its leases taken by reads live beside the record, where only its versioned
    /// reads and refusals show them, so a transform run in its plain `update` could write over another instance's
    /// lease. After ``maximumRefusals`` refusals in a row the call fails with a retryable error. With any other
    /// store, the transform runs in the store's atomic update.
    ///
    /// - Returns: The record now stored: the transform's result, or the unchanged stored record.
    @discardableResult
    func updateRecord(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> (record: SessionRecord, changed: Bool)
    {
        if let versioned = store as? any VersionedSecureStore {
            return try await replaceRecord(in: versioned, transform)
        }
        var outcome = (record: SessionRecord(), changed: false)
        do {
            try await store.update(forKey: storeKey) { data in
                let stored = try Self.decode(data)
                guard var next = try transform(stored) else {
                    outcome = (stored, false)
                    throw Unchanged()
                }
                next.generation = stored.generation + 1
                outcome = (next, true)
                return try Self.encode(next)
            }
        } catch is Unchanged {
            // The transform chose not to write.
        } catch let error as SessionKitError {
            throw error
        } catch let error as SecureStoreError {
            throw storeFailure(error)
        } catch {
            throw SessionKitError(
                code: .storeUnavailable, message: "the session could not be written", underlyingError: error)
        }
        outcome.record.storeVersion = nil  // the store's update does not say which version it wrote
        cache.withLock { $0 = outcome.record }
        return outcome
    }

    /// The conditional writes of ``updateRecord(_:)``; a retryable error after ``maximumRefusals`` refused writes in
    /// a row.
    private func replaceRecord(
        in versioned: any VersionedSecureStore, _ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?
    ) async throws(SessionKitError) -> (record: SessionRecord, changed: Bool) {
        var candidate = cache.withLock { $0 }
        // Whether a transform that declines on `candidate` is right to: it came from the store during this update
        // (a read or a refusal), or the store's announcements are being followed, which keep the record in memory
        // as new as the store's but for writes committed this very moment (and those move the generation on,
        // which the transforms check).
        var confirmed = listening?.isListening == true
        var refusals = 0
        while refusals < Self.maximumRefusals {
            guard let current = candidate, let version = current.storeVersion else {
                candidate = try await loadRecord()
                confirmed = true
                continue
            }
            guard var next = try transform(current) else {
                if confirmed { return (current, false) }
                candidate = nil
                continue
            }
            next.generation = current.generation + 1
            let encoded = try Self.encode(next)
            let outcome: VersionedWrite
            do {
                outcome = try await versioned.replace(
                    forKey: storeKey, ifVersion: version, with: encoded, dueAt: next.dueAt)
            } catch {
                throw storeFailure(error)
            }
            switch outcome {
            case .written(let written):
                next.storeVersion = written
                _ = cacheNewest(next)
                return (next, true)
            case .refused(let stored?):
                var record = try Self.decode(stored.data)
                record.takeStoreLease(stored.lease)
                record.storeVersion = stored.version
                (candidate, confirmed) = (cacheNewest(record), true)
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

    /// How many refused conditional writes in a row ``updateRecord(_:)`` takes before it fails: each refusal means
    /// another writer changed the record in between, and brings its new version back.
    static let maximumRefusals = 8

    /// Caches `record`, read from or written to a versioned store, unless the record in memory is newer: a read
    /// or a write and an announcement may cross, and a record announced while the call was under way is newer
    /// than what the call returns. Returns the record now cached.
    private nonisolated func cacheNewest(_ record: SessionRecord) -> SessionRecord {
        noteKnownVersion(record.storeVersion ?? 0)
        return cache.withLock { cached in
            if let held = cached, held.storeVersion != nil, held.generation > record.generation { return held }
            cached = record
            return record
        }
    }

    /// Records that the store held the record at `version` (a read, a write, a refusal or an announcement taken).
    private nonisolated func noteKnownVersion(_ version: UInt64) {
        knownVersion.withLock { $0 = max($0, version) }
    }

    /// Takes a record that the store announced with a change when it moves forward the version this manager knows
    /// (see ``storeDidChange(to:)``); ignores one that does not; and drops the record in memory, for the next call
    /// to read, when it knows no version yet or cannot decode the item.
    nonisolated func takeAnnounced(_ item: VersionedItem) {
        let known = knownVersion.withLock { $0 }
        if known > 0, item.version <= known { return }
        guard known > 0, var record = try? Self.decode(item.data) else {
            cache.withLock { $0 = nil }
            return
        }
        record.storeVersion = item.version
        cache.withLock { cached in
            if let held = cached?.storeVersion, held >= item.version { return }
            cached = record
        }
        noteKnownVersion(item.version)
    }

    static func decode(_ data: Data?) throws(SessionKitError) -> SessionRecord {
        guard let data else { return SessionRecord() }
        let record: SessionRecord
        do {
            record = try SessionRecord(json: data)
        } catch {
            throw SessionKitError(
                code: .storeCorrupted,
                message: "the stored session cannot be read (\(Self.describe(error))); sign in again to replace it",
                underlyingError: error
            )
        }
        guard record.version <= SessionRecord.schemaVersion else {
            throw SessionKitError(
                code: .storeCorrupted,
                message:
                    "the stored session was written by a newer SessionKit (record version \(record.version)); upgrade"
            )
        }
        return record
    }

    /// What is wrong with a record, from the errors that say it without quoting any value.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as SessionRecord.FormatError: error.description
        case let error as JSONParser.Failure: error.description
        default: "\(type(of: error))"
        }
    }

    static func encode(_ record: SessionRecord) throws(SessionKitError) -> Data {
        do {
            return try record.json()
        } catch {
            throw SessionKitError(
                code: .invalidInput, message: "the session could not be encoded", underlyingError: error)
        }
    }

    /// Maps a store error with ``SessionKitError/init(storeError:)`` and publishes the state it implies.
    nonisolated func storeFailure(_ error: SecureStoreError) -> SessionKitError {
        let failure = SessionKitError(storeError: error)
        if failure.code == .storeUnavailable { states.publish(.storeUnavailable(reason: error.message)) }
        return failure
    }
}

/// Thrown inside a store update to leave the item as it was.
private struct Unchanged: Error {}
