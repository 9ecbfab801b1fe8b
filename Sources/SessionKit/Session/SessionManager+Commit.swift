import Logging
import SecureStore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SessionManager {
    /// Renewed credentials that could not be saved yet: the provider has answered, so the refresh token in
    /// them may be the only one it still accepts.
    struct PendingRenewal: Codable, Sendable {
        /// The record's generation when the renewal's lease was last written; the credentials are saved only
        /// if nothing else wrote the record since.
        var generation: UInt64
        /// What to store.
        var credentials: Credentials
        /// Another API's access token the renewal was for, stored beside them.
        var api: RenewalCommit.APIToken? = nil
    }

    /// Saves renewed credentials, trying the store write again on a passing failure (a lock held by another
    /// process). When it cannot be saved, the renewal is kept in memory and set aside in the store's journal
    /// (``SecureStoreJournal``), so that the next call here or in another process saves it instead of spending
    /// the refresh token again; the error says so, and is retryable. ``RenewalCommit`` decides.
    ///
    /// - Returns: What the renewal was for: the session's credentials, or `api`'s.
    func commitRenewal(
        _ renewed: Credentials, api: RenewalCommit.APIToken? = nil, replacing current: Credentials,
        leasedGeneration: UInt64, announce: Bool
    ) async throws(SessionKitError) -> Credentials {
        let plan = RenewalCommit(
            renewed: renewed, api: api, replacing: current, leasedGeneration: leasedGeneration, owner: ownerID)
        var attempt = 0
        while true {
            do {
                return try await commit(plan, announce: announce)
            } catch {
                attempt += 1
                switch RenewalCommit.afterFailure(error.code, attempt: attempt, policy: policy) {
                case .retry(let pause):
                    try? await Task.sleep(for: pause)
                    continue
                case .fail: throw error
                case .setAside: break
                }
                let kept = await setAside(
                    PendingRenewal(generation: leasedGeneration, credentials: renewed, api: api))
                states.publish(.storeUnavailable(reason: error.message))
                throw SessionKitError(
                    code: error.code,
                    message: "the session was renewed, but the new tokens could not be saved (\(error.message)); "
                        + "they are \(kept) and the next call saves them; try again",
                    underlyingError: error
                )
            }
        }
    }

    /// Writes renewed credentials in one atomic write, unless the session was signed out or replaced
    /// while the request was under way: then the renewal is discarded and its refresh token revoked.
    private func commit(_ plan: RenewalCommit, announce: Bool) async throws(SessionKitError) -> Credentials {
        let (record, changed) = try await updateRecord { plan.record(over: $0) }
        guard changed else {
            revoke(plan.tokenToRevoke(whenStoreHolds: record.credentials))
            if let replacement = record.credentials { return replacement }
            throw SessionKitError(
                code: .signInRequired, message: "the session was signed out while it was being renewed")
        }
        if announce, plan.api == nil { states.publish(.didRenew(until: plan.renewed.expiresAt)) }
        states.publish(.active(until: record.credentials?.expiresAt))
        return plan.api?.credentials ?? plan.renewed
    }

    /// Keeps `pending` in memory and, where the store has a journal, sets it aside there too.
    ///
    /// - Returns: Where it is kept, for the error message.
    private func setAside(_ pending: PendingRenewal) async -> String {
        self.pending.withLock { $0 = pending }
        cache.drop()
        guard coordinator.keepsJournal else { return "kept in this process's memory" }
        do {
            try await coordinator.setJournalEntry(try JSONEncoder().encode(pending))
            return "set aside in the store's journal"
        } catch {
            logger?.warning("renewal could not be journaled", metadata: ["account": "\(account)"])
            return "kept in this process's memory only (the journal could not be written either)"
        }
    }

    /// Saves a renewal left unsaved here or, with `readingJournal`, by a process that ended, in the store's
    /// journal. A renewal that the store has moved past (a sign-out, a new sign-in) is dropped and its refresh
    /// token revoked.
    ///
    /// - Returns: Whether there was one (and the store was written).
    /// - Throws: ``SessionKitError/Code/storeUnavailable`` when the store still cannot be written; the
    ///   renewal stays set aside.
    @discardableResult
    func settlePendingRenewal(readingJournal: Bool) async throws(SessionKitError) -> Bool {
        var found = pending.withLock { $0 }
        if found == nil, readingJournal { found = try await journaledRenewal() }
        guard let pending = found else { return false }
        let plan = RenewalCommit(
            renewed: pending.credentials, api: pending.api, replacing: nil, leasedGeneration: pending.generation,
            owner: nil)
        let (record, changed) = try await updateRecord { plan.record(over: $0) }
        if !changed { revoke(plan.tokenToRevoke(whenStoreHolds: record.credentials)) }
        self.pending.withLock { $0 = nil }
        do {
            if coordinator.keepsJournal { try await coordinator.setJournalEntry(nil) }
        } catch {
            logger?.notice("saved renewal left in the journal", metadata: ["account": "\(account)"])
        }
        if changed { states.publish(.active(until: pending.credentials.expiresAt)) }
        return true
    }

    /// The renewal set aside in the journal, if any; an entry that cannot be read is removed, but one a newer
    /// SessionKit wrote is kept and reported (``SessionKitError/Code/writtenByNewerVersion``): its refresh token
    /// may be the only one the provider still accepts.
    private func journaledRenewal() async throws(SessionKitError) -> PendingRenewal? {
        guard coordinator.keepsJournal else { return nil }
        let data: Data?
        do {
            data = try await coordinator.journalEntry()
        } catch  where error.code == .corrupted || error.code == .keyMismatch {
            try? await coordinator.setJournalEntry(nil)
            return nil
        } catch {
            throw cache.storeFailure(error)
        }
        guard let data else { return nil }
        guard let pending = try? JSONDecoder().decode(PendingRenewal.self, from: data) else {
            if let version = PendingRenewal.newerVersion(data) {
                throw SessionKitError(
                    code: .writtenByNewerVersion,
                    message: "a renewal a newer SessionKit set aside in the store's journal (version \(version)) is "
                        + "kept as it is: upgrade to save it")
            }
            logger?.warning("unreadable journal entry removed", metadata: ["account": "\(account)"])
            try? await coordinator.setJournalEntry(nil)
            return nil
        }
        return pending
    }

    /// Forgets a renewal left unsaved, here and in the journal, after the session was replaced or cleared.
    ///
    /// - Returns: Its credentials, if there was one.
    @discardableResult
    func dropPendingRenewal() async -> Credentials? {
        var dropped = pending.withLock { $0.take() }?.credentials
        if dropped == nil { dropped = (try? await journaledRenewal())?.credentials }
        if dropped != nil { try? await coordinator.setJournalEntry(nil) }
        return dropped
    }

    /// Revokes a refresh token that will not be stored (``RenewalCommit/tokenToRevoke(whenStoreHolds:)``), in
    /// the background: the caller's answer does not wait for the provider.
    private func revoke(_ token: Secret?) {
        guard let token else { return }
        let provider = self.provider
        Task { try? await provider.revoke(token) }
    }
}

extension SessionManager.PendingRenewal {
    /// The credentials in it that serve `target`, if any.
    func serving(_ target: RenewalTarget) -> Credentials? {
        switch target {
        case .session: credentials
        case .api(let key): api?.key == key.recordKey ? api?.credentials : nil
        case .exclusive: nil
        }
    }
}
