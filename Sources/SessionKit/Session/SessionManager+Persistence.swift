import Foundation
import SecureStore
import Synchronization

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
        let data: Data?
        var version: UInt64?
        do {
            if let versioned = store as? any VersionedSecureStore {
                let item = try await versioned.versionedData(forKey: storeKey)
                (data, version) = (item.data, item.version)
            } else {
                data = try await store.data(forKey: storeKey)
            }
        } catch {
            throw storeFailure(error)
        }
        return try cacheLoaded(data, version: version)
    }

    /// Decodes a record just read (at `version`, in a versioned store), caches it, and publishes the state it
    /// implies.
    private nonisolated func cacheLoaded(_ data: Data?, version: UInt64? = nil) throws(SessionKitError)
        -> SessionRecord
    {
        var record = try Self.decode(data)
        record.storeVersion = version
        cache.withLock { $0 = record }
        if record.credentials == nil {
            states.publish(.signedOut)
        }
        return record
    }

    /// Atomically transforms the stored record and caches the result. The transform sees the stored
    /// record; returning `nil` leaves the store untouched.
    ///
    /// With a versioned store and the record in memory at a known version, the transform runs on that record
    /// and the result is written only if the store still holds that version: one round trip. When the store
    /// moved on, or the transform declines to write (it may have judged a stale record), the transform runs
    /// again on the stored record, in the store's atomic update.
    ///
    /// - Returns: The record now stored: the transform's result, or the unchanged stored record.
    @discardableResult
    func updateRecord(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> (record: SessionRecord, changed: Bool)
    {
        if let written = try await replaceCachedRecord(transform) { return (written, true) }
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

    /// The conditional write of ``updateRecord(_:)``: the transform's result on the cached record, written if
    /// the store still holds the version it was read at. `nil` when that cannot be done or did not happen.
    private func replaceCachedRecord(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> SessionRecord?
    {
        guard let versioned = store as? any VersionedSecureStore, let cached = cache.withLock({ $0 }),
            let version = cached.storeVersion, var next = try transform(cached)
        else { return nil }
        next.generation = cached.generation + 1
        let encoded = try Self.encode(next)
        let written: UInt64?
        do {
            written = try await versioned.replace(forKey: storeKey, ifVersion: version, with: encoded)
        } catch {
            throw storeFailure(error)
        }
        guard let written else { return nil }
        next.storeVersion = written
        cache.withLock { $0 = next }
        return next
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
            return try JSONEncoder().encode(record)
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
