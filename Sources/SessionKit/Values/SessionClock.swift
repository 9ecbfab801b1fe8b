#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The one source of "now" for every expiry decision, injectable so tests and apps control time.
///
/// ```swift
/// let clock = SessionClock.system
/// let skewed = SessionClock { Date().addingTimeInterval(3600) }   // a device clock an hour fast
/// ```
public struct SessionClock: Sendable {
    private let read: @Sendable () -> Date

    /// A clock that reads `now` from `read`.
    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    /// The current time.
    public func now() -> Date { read() }

    /// The system's wall clock.
    public static let system = SessionClock { Date() }
}
