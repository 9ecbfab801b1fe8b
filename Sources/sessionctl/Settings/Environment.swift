#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Environment variables, read one at a time.
///
/// `ProcessInfo.processInfo.environment` builds a dictionary of the whole environment on every call; with
/// the handful of reads a command makes, that was a quarter of the instructions of `sessionctl token`.
enum Environment {
    /// The value of `name`, or `nil` when it is unset or empty.
    static func value(_ name: String) -> String? {
        guard let pointer = getenv(name) else { return nil }
        let text = String(cString: pointer)
        return text.isEmpty ? nil : text
    }

    /// The home folder: `HOME`, else the account's home directory.
    static var home: String {
        value("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path
    }
}
