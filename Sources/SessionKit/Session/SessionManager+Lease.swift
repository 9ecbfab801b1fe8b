#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A renewal's lease: taken in the record before the refresh grant goes out, extended before each attempt (and
/// before the first when the wait for the key set took half its margin), released when a renewal fails.
extension SessionManager {
    /// What an attempt to take the lease came to.
    enum LeaseOutcome {
        /// Taken; the record is now at `generation`.
        case acquired(generation: UInt64)
        /// The record changed since it was read, or another instance holds an active lease: here it is, as the
        /// store holds it now.
        case refused(SessionRecord)
    }

    /// Takes the lease in one conditional write: only on the record at `generation`, and only when no other
    /// instance holds an active lease on it.
    func acquireLease(expecting generation: UInt64) async throws(SessionKitError) -> LeaseOutcome {
        let now = clock.now()
        let (record, acquired) = try await updateRecord { stored in
            guard stored.generation == generation else { return nil }
            if let lease = stored.renewal, lease.owner != ownerID, lease.isActive(at: now) { return nil }
            var next = stored
            next.renewal = RenewalLease(
                owner: ownerID, pid: ProcessInfo.processInfo.processIdentifier, host: RenewalLease.currentHost,
                startedAt: now,
                expiresAt: now.addingTimeInterval(leaseSeconds)
            )
            return next
        }
        return acquired ? .acquired(generation: record.generation) : .refused(record)
    }

    /// What an attempt to extend the lease came to.
    enum LeaseExtension {
        /// Still this instance's, extended; the record is now at `generation`.
        case held(generation: UInt64)
        /// Lapsed and taken over: the record as the store holds it now.
        case lost(SessionRecord)
    }

    /// Extends this instance's lease before the first attempt, in one conditional write: `lost`, with the stored
    /// record, when the lease lapsed and the record moved on (another instance took it), so nothing is sent.
    func extendLeaseIfHeld(_ generation: UInt64) async throws(SessionKitError) -> LeaseExtension {
        let now = clock.now()
        let outcome = try await updateRecord { stored in
            guard stored.generation == generation, var lease = stored.renewal, lease.owner == ownerID else {
                return nil
            }
            lease.expiresAt = now.addingTimeInterval(leaseSeconds)
            var next = stored
            next.renewal = lease
            return next
        }
        return outcome.changed ? .held(generation: outcome.record.generation) : .lost(outcome.record)
    }

    /// Extends this instance's lease before another attempt, or throws when the lease was lost: then the
    /// grant must not be sent again from here.
    func extendLease(_ generation: UInt64) async throws(SessionKitError) -> UInt64 {
        let outcome: LeaseExtension
        do {
            outcome = try await extendLeaseIfHeld(generation)
        } catch {
            await releaseLease(generation)
            throw error
        }
        guard case .held(let extended) = outcome else {
            throw SessionKitError(
                code: .timeout,
                message: "the renewal outlasted its lease and another process may have taken it over; "
                    + "the session is kept, try again"
            )
        }
        return extended
    }

    /// How long a lease lasts: a whole request, answer body included, and then ``RenewalPolicy/leaseDuration``
    /// for what follows it, so that a lease never lapses while its holder still waits for an answer.
    var leaseSeconds: TimeInterval {
        provider.configuration.effectiveRequestTimeout.seconds + policy.leaseDuration.seconds
    }

    /// Clears this instance's lease after a failed renewal, so others may try at once.
    func releaseLease(_ leasedGeneration: UInt64) async {
        _ = try? await updateRecord { stored in
            guard stored.renewal?.owner == ownerID else { return nil }
            var next = stored
            next.renewal = nil
            return next
        }
    }
}
