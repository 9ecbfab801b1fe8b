import Logging
import SecureStore
import SessionKitSupport
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SessionManager {
    /// The slow path of ``credentials(minTTL:scope:)`` and ``credentials(audience:scope:minTTL:)``: joins a
    /// renewal of the same target under way in this process, or starts one once no other is running.
    func validCredentials(minTTL: TimeInterval, scope: String?, force: Bool, target: RenewalTarget = .session)
        async throws(SessionKitError) -> Credentials
    {
        if !force, let cached = cache.withLock({ $0.flatMap(target.credentials(in:)) }),
            cached.satisfies(minTTL: minTTL, scope: scope, now: clock.now())
        {
            return cached
        }
        // Another target's renewal spends the same refresh token: it finishes first, and may have brought what
        // this call needs (another API's renewal also stores the rotated refresh token).
        while let other = renewal.withLock({ $0 }), other.target != target {
            _ = await other.task.result
            renewal.withLock { if $0 === other { $0 = nil } }
        }
        // A cold cache (a process's first call for the session) is read in a task that the calls arriving
        // meanwhile join, as they join a renewal: one read for them all. A versioned store leases the session
        // to that read in the same round trip when the session's own token is due, and the renewal goes on
        // from there; valid stored credentials need nothing more.
        // A record held at a version the store gave it (read, written or announced) is where a renewal starts:
        // its lease and its commit are conditional writes, so a stale one costs a refusal, which brings the
        // stored record back, and never a wrong write.
        let running: RunningRenewal
        var joined = false
        if let current = renewal.withLock({ $0 }) {
            (running, joined) = (current, true)
        } else {
            let cold = !force && cache.withLock({ $0 == nil })
            let fresh = coordinator.knownRecord()
            running = RunningRenewal(
                target: target, isFirstRead: cold,
                task: Task { [fresh] in
                    if cold { return try await self.firstCall(minTTL: minTTL, scope: scope, target: target) }
                    return try await self.performRenewal(
                        minTTL: minTTL, scope: scope, force: force, target: target, fresh: fresh, leased: false)
                })
            renewal.withLock { $0 = running }
        }
        let result = await running.task.result
        renewal.withLock { if $0 === running { $0 = nil } }
        let credentials: Credentials
        do {
            credentials = try result.get()
        } catch {
            throw ProviderClient.wrap(error)
        }
        // A first read answers the call that started it; a call that joined it may ask for more (a longer
        // minTTL, another scope), and goes on from the record now in memory.
        if joined, running.isFirstRead, !force, !credentials.satisfies(minTTL: minTTL, scope: scope, now: clock.now()) {
            return try await validCredentials(minTTL: minTTL, scope: scope, force: force, target: target)
        }
        return credentials
    }

    /// A process's first call for the session: reads the record (leasing it when a versioned store finds the
    /// session's token due), and returns its credentials when they serve, or renews from it.
    private func firstCall(minTTL: TimeInterval, scope: String?, target: RenewalTarget)
        async throws(SessionKitError) -> Credentials
    {
        let record: SessionRecord
        var leased = false
        // Signals from here on: one that comes while the read is under way is not lost to the wait below.
        let epoch = changes.epoch
        switch target == .session ? try await loadRecordLeasingIfDue(minTTL: minTTL) : .read(try await loadRecord()) {
        case .leased(let read): (record, leased) = (read, true)
        case .read(let read): record = read
        case .heldElsewhere(let endsWait):
            // Another instance is renewing the session: its write is what this call needs, not the stored record,
            // which the store did not send.
            record = try await waitForOtherRenewal(until: ContinuousClock.now + policy.waitTimeout, since: epoch) {
                [clock] in
                endsWait($0, clock.now())
            }
        }
        if let stored = target.credentials(in: record), stored.satisfies(minTTL: minTTL, scope: scope, now: clock.now())
        {
            // Leased as due, yet it serves (a minTTL the provider's tokens cannot outlive): let others in.
            if leased { await releaseLease(record.generation) }
            if target == .session { states.publish(.active(until: stored.expiresAt)) }
            return stored
        }
        return try await performRenewal(
            minTTL: minTTL, scope: scope, force: false, target: target, fresh: record, leased: leased, readSince: epoch)
    }

    /// Saves a renewal left unsaved, then reads the store (unless `fresh` was read just now and nothing was
    /// saved), and renews unless another renewal (here or in another process) already did. `leased` says that
    /// `fresh` came with a lease taken for this call; `readSince`, the ``ChangeSignal/epoch`` from before it was
    /// read, when the caller knows it.
    private func performRenewal(
        minTTL: TimeInterval, scope: String?, force: Bool, target: RenewalTarget, fresh: SessionRecord?,
        leased: Bool, readSince: Int? = nil
    ) async throws(SessionKitError) -> Credentials {
        var fresh = fresh
        do {
            // Only what this process holds in memory: the journal is read when a grant is about to be sent.
            if try await settlePendingRenewal(readingJournal: false) { fresh = nil }
        } catch  where error.code == .storeUnavailable {
            // The store still cannot be written: the renewed credentials held in memory serve meanwhile.
            if let kept = pending.withLock({ $0?.serving(target) }),
                kept.satisfies(minTTL: minTTL, scope: scope, now: clock.now())
            {
                return kept
            }
            throw error
        }
        let deadline = ContinuousClock.now + policy.waitTimeout
        var decisions = RenewalDecisions(
            minTTL: minTTL, scope: scope, target: target, force: force, ownerID: ownerID,
            keepsJournal: coordinator.keepsJournal, fresh: fresh, leased: leased)
        // Signals since before the step that brought the record the next decision is made from: a wait or a pause
        // that this record calls for ends at once for an announcement that came meanwhile.
        var epoch = readSince ?? changes.epoch
        while true {
            let decidedFrom = epoch
            epoch = changes.epoch
            switch decisions.next(now: clock.now()) {
            case .read:
                decisions.read(try await loadRecord())
            case .finish(let current):
                if target == .session { states.publish(.active(until: current.expiresAt)) }
                return current
            case .noSession:
                states.publish(.signedOut)
                throw SessionKitError(code: .signInRequired, message: "no session is stored; sign in")
            case .cannotRenew:
                let reason = "the access token expired and there is no refresh token to renew it; sign in again"
                states.publish(.needsSignIn(reason: reason))
                throw SessionKitError(code: .signInRequired, message: reason)
            case .waitForOther(let generation):
                // The record the wait ended with is the one to go on with: it is not read again.
                decisions.waitEnded(
                    with: try await waitForOtherRenewal(after: generation, until: deadline, since: decidedFrom))
            case .settleJournal:
                decisions.journalSettled(wrote: try await settlePendingRenewal(readingJournal: true))
            case .takeLease(let current, let generation):
                // Several instances renewing the same sessions at once: one of them may take this lease in the
                // next few milliseconds, and its announcement then saves a refused write.
                if let pause = coordinator.pauseBeforeLease() {
                    await changes.wait(upTo: pause, unlessSignalledSince: decidedFrom)
                    if let heard = coordinator.knownRecord(), heard.generation != generation {
                        decisions.read(heard)
                        continue
                    }
                }
                switch try await acquireLease(expecting: generation) {
                case .acquired(let leased):
                    switch try await renewObserved(current, scope: scope, target: target, leasedGeneration: leased) {
                    case .renewed(let renewed): return renewed
                    case .leaseLost(let stored): decisions.leaseRefused(stored: stored)
                    }
                case .refused(let stored):
                    coordinator.leaseRefused()
                    decisions.leaseRefused(stored: stored)
                }
            case .renewUnderLease(let current, let generation):
                switch try await renewObserved(current, scope: scope, target: target, leasedGeneration: generation) {
                case .renewed(let renewed): return renewed
                case .leaseLost(let stored): decisions.leaseRefused(stored: stored)
                }
            }
        }
    }

    /// What a renewal under a lease came to.
    private enum LeasedRenewal {
        case renewed(Credentials)
        /// The lease lapsed before the grant went out (the process stalled, or the key set took most of it), and
        /// another instance took the session meanwhile: here is the record as the store holds it now. Nothing was
        /// sent.
        case leaseLost(SessionRecord)
    }

    /// ``renew(_:scope:target:leasedGeneration:)``, told to the coordinator (a server's metrics).
    private func renewObserved(
        _ current: Credentials, scope: String?, target: RenewalTarget, leasedGeneration: UInt64
    ) async throws(SessionKitError) -> LeasedRenewal {
        do {
            let outcome = try await renew(current, scope: scope, target: target, leasedGeneration: leasedGeneration)
            if case .renewed = outcome { coordinator.renewalEnded(.renewed) }
            return outcome
        } catch {
            coordinator.renewalEnded(.failed(error))
            throw error
        }
    }

    /// Renews while holding the lease taken at `leasedGeneration`, and applies the failure policy.
    ///
    /// The refresh grant is sent again only when no answer arrived (a lost response, a timeout, a 5xx), and
    /// then under a lease extended for the new attempt. Once an answer with tokens has arrived, nothing sends
    /// the grant again: whatever fails afterwards (the key set, validation, the store write), the new refresh
    /// token is kept.
    private func renew(_ current: Credentials, scope: String?, target: RenewalTarget, leasedGeneration: UInt64)
        async throws(SessionKitError) -> LeasedRenewal
    {
        states.publish(.renewing)
        let leasedAt = clock.now()
        var generation = leasedGeneration
        let received: ProviderClient.ReceivedTokens
        do {
            // The keys first: a key set that cannot be fetched now costs nothing, after the answer a spent token.
            if current.idToken != nil || (scope ?? current.scope ?? provider.configuration.scope).hasScope("openid") {
                try await provider.preloadSigningKeys()
            }
            // The grant goes out only under a lease that covers its whole request: when the keys (or a stalled,
            // suspended process) took half the lease's margin, the lease is extended first, in the store, and a
            // lease another instance took meanwhile means its renewal serves this call; the refresh token held
            // here may be spent, and is never sent.
            if clock.now().timeIntervalSince(leasedAt) > policy.leaseDuration.seconds / 2 {
                switch try await extendLeaseIfHeld(generation) {
                case .held(let extended): generation = extended
                case .lost(let stored): return .leaseLost(stored)
                }
            }
            received = try await sendRenewal(current, scope: scope, target: target, generation: &generation)
        } catch  where error.oauthError == "invalid_grant" {
            return .renewed(try await endSession(after: error, leasedGeneration: generation))
        } catch {
            await releaseLease(generation)
            states.publish(.active(until: current.expiresAt))
            throw error
        }
        // From here on, the refresh token that was sent may be spent.
        var (renewed, refusal) = await acceptRenewal(received, replacing: current)
        // Another API's token goes beside the session's credentials, which keep their access and ID tokens and
        // take the rotated refresh token.
        var api: RenewalCommit.APIToken?
        if case .api(let key) = target {
            if refusal == nil {
                var token = renewed
                token.refreshToken = nil
                token.idToken = nil
                api = RenewalCommit.APIToken(key: key.recordKey, credentials: token)
            }
            var session = current
            session.refreshToken = renewed.refreshToken ?? current.refreshToken
            renewed = session
        }
        let committed = try await commitRenewal(
            renewed, api: api, replacing: current, leasedGeneration: generation, announce: refusal == nil)
        guard let refusal else { return .renewed(committed) }
        throw SessionKitError(
            code: refusal.code,
            message: "the provider's renewed tokens were refused (\(refusal.message)); its new refresh token is "
                + "kept, so the session is not lost, but the access token was not renewed",
            oauthError: refusal.oauthError,
            failedCheck: refusal.failedCheck,
            underlyingError: refusal
        )
    }

    /// Sends the refresh grant, and again after a transient failure that brought no answer, each time under a
    /// lease that covers the request; `generation` follows the lease's writes.
    private func sendRenewal(
        _ current: Credentials, scope: String?, target: RenewalTarget, generation: inout UInt64
    ) async throws(SessionKitError) -> ProviderClient.ReceivedTokens {
        var attempt = 0
        while true {
            do {
                switch target {
                case .session: return try await provider.sendRenewal(current, scope: scope)
                case .api(let key):
                    return try await provider.sendRenewal(current, scope: nil, parameters: key.grantParameters)
                case .exclusive: return try await Self.notARenewal()
                }
            } catch  where error.isRetryable && attempt < policy.transientRetries {
                attempt += 1
                try? await Task.sleep(for: policy.retryDelay)
                generation = try await extendLease(generation)
            }
        }
    }

    /// What ``RenewalTarget/exclusive(_:)`` would renew: nothing (it never reaches the renewal's grant).
    private static func notARenewal() async throws(SessionKitError) -> ProviderClient.ReceivedTokens {
        throw SessionKitError(code: .invalidInput, message: "an exclusive use of the refresh token is not a renewal")
    }

    /// Validates a renewal's answer. Its refresh token is live whatever validation says, so it is kept:
    ///
    /// - The key set could not be fetched (a transient failure): the access and refresh tokens came from the
    ///   token endpoint itself and are kept, with the ID token validated earlier instead of the new one.
    /// - The answer or its ID token was refused: only the new refresh token is kept; nothing else from this
    ///   answer is handed out, and the refusal is returned, to be thrown once the refresh token is saved.
    private func acceptRenewal(_ received: ProviderClient.ReceivedTokens, replacing current: Credentials) async
        -> (credentials: Credentials, refusal: SessionKitError?)
    {
        do {
            let expectations = await provider.renewalExpectations(for: current)
            return (try await provider.accept(received, expecting: expectations), nil)
        } catch {
            if error.isRetryable, case .success(let tokens) = received.parsed {
                logger?.warning(
                    "renewed ID token not validated; keeping the earlier one",
                    metadata: ["account": "\(account)", "error": "\(error.code)"]
                )
                var kept = tokens.credentials(receivedAt: received.receivedAt, keeping: current)
                kept.idToken = current.idToken
                return (kept, nil)
            }
            var kept = current
            kept.refreshToken = received.refreshToken ?? current.refreshToken
            return (kept, error)
        }
    }

    /// The provider refused the refresh token. If another process stored newer credentials meanwhile,
    /// use them; otherwise clear the session, and the user must sign in again.
    func endSession(after error: SessionKitError, leasedGeneration: UInt64) async throws(SessionKitError)
        -> Credentials
    {
        let (record, changed) = try await updateRecord { stored in
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

}
