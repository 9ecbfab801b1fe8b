import SessionKitSupport

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

extension SessionRecord {
    /// The record stored as `data`: an empty record for no data.
    ///
    /// - Throws: ``SessionKitError/Code/storeCorrupted`` when the data is not a record this version of SessionKit
    ///   can read, saying what is wrong without quoting any value.
    package static func stored(_ data: Data?) throws(SessionKitError) -> SessionRecord {
        guard let data else { return SessionRecord() }
        let record: SessionRecord
        do {
            record = try SessionRecord(json: data)
        } catch {
            throw SessionKitError(
                code: .storeCorrupted,
                message: "the stored session cannot be read (\(describe(error))); sign in again to replace it",
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

    /// The record as it is stored.
    package func storedData() throws(SessionKitError) -> Data {
        do {
            return try json()
        } catch {
            throw SessionKitError(
                code: .invalidInput, message: "the session could not be encoded", underlyingError: error)
        }
    }

    /// What is wrong with a record, from the errors that say it without quoting any value.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as SessionRecord.FormatError: error.description
        case let error as JSONParser.Failure: error.description
        default: "\(type(of: error))"
        }
    }
}
