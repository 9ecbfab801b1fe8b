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
        do {
            data = try await store.data(forKey: storeKey)
        } catch {
            throw storeFailure(error)
        }
        return try cacheLoaded(data)
    }

    /// Decodes a record just read, caches it, and publishes the state it implies.
    private nonisolated func cacheLoaded(_ data: Data?) throws(SessionKitError) -> SessionRecord {
        let record = try Self.decode(data)
        cache.withLock { $0 = record }
        if record.credentials == nil {
            states.publish(.signedOut)
        }
        return record
    }

    /// Atomically transforms the stored record and caches the result. The transform sees the stored
    /// record (not the cache); returning `nil` leaves the store untouched.
    ///
    /// - Returns: The record now stored: the transform's result, or the unchanged stored record.
    @discardableResult
    func updateRecord(_ transform: (SessionRecord) throws(SessionKitError) -> SessionRecord?)
        async throws(SessionKitError) -> (record: SessionRecord, changed: Bool)
    {
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
        cache.withLock { $0 = outcome.record }
        return outcome
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
