import Foundation
import Synchronization

extension SessionManager {
    private enum LeaseOutcome {
        case acquired(generation: UInt64)
        case changed
        case heldByOther
    }

    /// The slow path of ``credentials(minTTL:scope:)``: joins a renewal under way in this process, or
    /// starts one.
    func validCredentials(minTTL: TimeInterval, scope: String?, force: Bool) async throws(SessionKitError)
        -> Credentials
    {
        if !force, let cached = cache.withLock({ $0?.credentials }), scope == nil || scope == cached.scope,
            cached.isValid(minTTL: minTTL, now: clock.now())
        {
            return cached
        }
        // A cold cache with valid stored credentials (a process's first call) needs no renewal task.
        if !force, renewal.withLock({ $0 == nil }), cache.withLock({ $0 == nil }),
            let stored = try localCredentials(minTTL: minTTL, scope: scope)
        {
            states.publish(.active(until: stored.expiresAt))
            return stored
        }
        let task: Task<Credentials, any Error>
        if let running = renewal.withLock({ $0 }) {
            task = running
        } else {
            task = Task { try await self.performRenewal(minTTL: minTTL, scope: scope, force: force) }
            renewal.withLock { $0 = task }
        }
        let result = await task.result
        renewal.withLock { if $0 == task { $0 = nil } }
        do {
            return try result.get()
        } catch {
            throw ProviderClient.wrap(error)
        }
    }

    /// Reads the store, and renews unless another renewal (here or in another process) already did.
    private func performRenewal(minTTL: TimeInterval, scope: String?, force: Bool) async throws(SessionKitError)
        -> Credentials
    {
        let deadline = ContinuousClock.now + policy.waitTimeout
        var forced = force
        while true {
            let record = try loadRecord()
            guard let current = record.credentials else {
                states.publish(.signedOut)
                throw SessionKitError(code: .signInRequired, message: "no session is stored; sign in")
            }
            if !forced, scope == nil || scope == current.scope, current.isValid(minTTL: minTTL, now: clock.now()) {
                states.publish(.active(until: current.expiresAt))
                return current
            }
            guard current.canRenew else {
                let reason = "the access token expired and there is no refresh token to renew it; sign in again"
                states.publish(.needsSignIn(reason: reason))
                throw SessionKitError(code: .signInRequired, message: reason)
            }
            switch try acquireLease(expecting: record.generation) {
            case .acquired(let generation):
                return try await renew(current, scope: scope, leasedGeneration: generation)
            case .changed:
                forced = false
            case .heldByOther:
                // Another process is renewing: its result serves this call too.
                forced = false
                try await waitForOtherRenewal(after: record.generation, until: deadline)
            }
        }
    }

    private func acquireLease(expecting generation: UInt64) throws(SessionKitError) -> LeaseOutcome {
        var outcome = LeaseOutcome.changed
        let now = clock.now()
        try updateRecord { stored in
            guard stored.generation == generation else { return nil }
            if let lease = stored.renewal, lease.owner != ownerID, lease.isActive(at: now) {
                outcome = .heldByOther
                return nil
            }
            var next = stored
            next.renewal = RenewalLease(
                owner: ownerID, pid: getpid(), host: RenewalLease.currentHost, startedAt: now,
                expiresAt: now.addingTimeInterval(policy.leaseDuration.seconds)
            )
            outcome = .acquired(generation: stored.generation + 1)
            return next
        }
        return outcome
    }

    private func waitForOtherRenewal(after generation: UInt64, until deadline: ContinuousClock.Instant)
        async throws(SessionKitError)
    {
        states.publish(.renewing)
        while ContinuousClock.now < deadline {
            do {
                try await Task.sleep(for: policy.pollInterval)
            } catch {
                throw SessionKitError(code: .cancelled, message: "waiting for the session's renewal was cancelled")
            }
            let record = try loadRecord()
            if record.generation != generation || !(record.renewal?.isActive(at: clock.now()) ?? false) { return }
        }
        throw SessionKitError(
            code: .timeout,
            message: "another process has been renewing this session for too long; the session is kept, try again"
        )
    }

    /// Renews while holding the lease taken at `leasedGeneration`, and applies the failure policy.
    private func renew(_ current: Credentials, scope: String?, leasedGeneration: UInt64) async throws(SessionKitError)
        -> Credentials
    {
        states.publish(.renewing)
        var attempt = 0
        while true {
            do {
                let renewed = try await provider.renew(current, scope: scope)
                return try commit(renewed, replacing: current, leasedGeneration: leasedGeneration)
            } catch  where error.oauthError == "invalid_grant" {
                return try endSession(after: error, leasedGeneration: leasedGeneration)
            } catch  where error.isRetryable && attempt < policy.transientRetries {
                attempt += 1
                try? await Task.sleep(for: policy.retryDelay)
            } catch {
                releaseLease(leasedGeneration)
                states.publish(.active(until: current.expiresAt))
                throw error
            }
        }
    }

    /// Writes renewed credentials in one atomic write, unless the session was signed out or replaced
    /// while the request was under way: then the renewal is discarded and its refresh token revoked.
    private func commit(_ renewed: Credentials, replacing current: Credentials, leasedGeneration: UInt64)
        throws(SessionKitError) -> Credentials
    {
        let (record, changed) = try updateRecord { stored in
            guard stored.generation == leasedGeneration, stored.renewal?.owner == ownerID else { return nil }
            var next = stored
            next.credentials = renewed
            next.renewal = nil
            return next
        }
        guard changed else {
            if let rotated = renewed.refreshToken, rotated != current.refreshToken {
                let provider = self.provider
                Task { try? await provider.revoke(rotated) }
            }
            if let replacement = record.credentials { return replacement }
            throw SessionKitError(
                code: .signInRequired, message: "the session was signed out while it was being renewed")
        }
        states.publish(.didRenew(until: renewed.expiresAt))
        states.publish(.active(until: renewed.expiresAt))
        return renewed
    }

    /// The provider refused the refresh token. If another process stored newer credentials meanwhile,
    /// use them; otherwise clear the session, and the user must sign in again.
    private func endSession(after error: SessionKitError, leasedGeneration: UInt64) throws(SessionKitError)
        -> Credentials
    {
        let (record, changed) = try updateRecord { stored in
            guard stored.generation == leasedGeneration else { return nil }
            return stored.cleared()
        }
        if !changed, let newer = record.credentials, newer.isValid(now: clock.now()) {
            return newer
        }
        let reason = "the refresh token was revoked or is no longer valid; sign in again"
        states.publish(.needsSignIn(reason: reason))
        throw SessionKitError(
            code: .signInRequired,
            message: "the session could not be renewed because \(reason)",
            oauthError: error.oauthError,
            oauthErrorDescription: error.oauthErrorDescription,
            httpStatus: error.httpStatus,
            underlyingError: error
        )
    }

    /// Clears this instance's lease after a failed renewal, so others may try at once.
    private func releaseLease(_ leasedGeneration: UInt64) {
        _ = try? updateRecord { stored in
            guard stored.renewal?.owner == ownerID else { return nil }
            var next = stored
            next.renewal = nil
            return next
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
