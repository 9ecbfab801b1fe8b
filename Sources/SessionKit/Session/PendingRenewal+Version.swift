import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SessionManager.PendingRenewal {
    /// The version of a journal entry a newer SessionKit wrote, or `nil`: a `version` of its own (this one writes
    /// none), or credentials (the session's or another API's) of a version above ``Credentials/schemaVersion``.
    static func newerVersion(_ data: Data) -> Int? {
        guard let entry = (try? JSONParser.parse(data))?.objectValue else { return nil }
        if let version = entry.member("version")?.intValue { return version }
        let credentials = [entry.member("credentials"), entry.member("api")?.objectValue?.member("credentials")]
        let versions = credentials.compactMap { $0?.objectValue?.member("version")?.intValue }
        return versions.filter { $0 > Credentials.schemaVersion }.max()
    }
}
