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

extension Error {
    /// What went wrong, for a message: the system's own words for a file error (`No such file or directory`),
    /// else the error's description. Errors here carry paths, never secrets.
    var reason: String {
        let posix: POSIXError? = (self as? POSIXError) ?? ((self as? CocoaError)?.underlying as? POSIXError)
        if let posix { return String(cString: strerror(posix.code.rawValue)) }
        return "\(self)"
    }
}
