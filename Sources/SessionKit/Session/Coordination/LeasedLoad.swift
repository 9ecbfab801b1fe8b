#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// What a first call's read (``SessionCoordinator/readLeasingIfDue(dueBy:owner:until:)``) found.
package enum LeasedLoad: Sendable {
    /// The session was due for renewal and the caller holds the lease on it now.
    case leased(SessionRecord)
    /// Anything else: the record as stored, with whatever lease is on it.
    case read(SessionRecord)
    /// The session was due and another instance's live lease is on it; the store did not send the record. The
    /// caller waits for a record that `endsWait` accepts at the time given: the holder's write, or the record
    /// as it was once that lease lapsed.
    case heldElsewhere(endsWait: @Sendable (SessionRecord, Date) -> Bool)
}
