import Foundation
import NIOCore
import SecureStore

/// One `leaseIfDue(forKey:dueBy:lease:)` call, as ``StatementBatcher`` holds it until it is sent.
struct LeaseRequest: Sendable {
    /// The SHA-256 of the item's key.
    let digest: ByteBuffer
    /// The item is leased if it falls due at or before this.
    let threshold: Date
    /// The lease to take.
    let lease: ItemLease
}
