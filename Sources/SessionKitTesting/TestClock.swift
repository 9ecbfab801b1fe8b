public import Foundation
public import SessionKit
import Synchronization

/// A wall clock that tests can move forward, for expiry decisions without waiting.
///
/// ```swift
/// let time = TestClock()
/// let session = SessionManager(provider: provider, store: store, clock: time.clock)
/// time.advance(by: 3600)        // the access token is now expired, as far as the session knows
/// ```
public final class TestClock: Sendable {
    private final class Offset: Sendable {
        let seconds = Mutex<TimeInterval>(0)
    }

    private let offset = Offset()

    /// A clock at the system time.
    public init() {}

    /// The ``SessionClock`` to inject: the system time plus the offset so far.
    public var clock: SessionClock {
        SessionClock { [offset] in Date().addingTimeInterval(offset.seconds.withLock { $0 }) }
    }

    /// Moves the clock forward by `seconds` (backwards when negative).
    public func advance(by seconds: TimeInterval) {
        offset.seconds.withLock { $0 += seconds }
    }
}
