import SessionKitSupport

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

extension SessionRecord {
    /// The record stored as `data`: an empty record for no data.
    ///
    /// - Throws: ``SessionKitError/Code/writtenByNewerVersion`` for a record a newer SessionKit wrote (left as it
    ///   is), and ``SessionKitError/Code/storeCorrupted`` when the data is not a record at all, saying what is
    ///   wrong without quoting any value.
    package static func stored(_ data: Data?) throws(SessionKitError) -> SessionRecord {
        guard let data else { return SessionRecord() }
        do {
            return try SessionRecord(json: data)
        } catch let error as NewerVersion {
            throw SessionKitError(
                code: .writtenByNewerVersion,
                message: "the stored session was written by a newer SessionKit (\(error)); it is kept as it is: "
                    + "upgrade to read it",
                underlyingError: error
            )
        } catch {
            throw SessionKitError(
                code: .storeCorrupted,
                message: "the stored session cannot be read (\(describe(error))); sign in again to replace it",
                underlyingError: error
            )
        }
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
