import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension SessionManager {
    /// Trades the session's refresh token for a session transfer token (Auth0's Native to Web SSO): a web app of
    /// the same tenant opened with it (``SessionTransferToken/appended(to:)``, to its login route or to
    /// `/authorize`) signs the user in without asking again.
    ///
    /// ```swift
    /// let transfer = try await session.sessionTransferToken()
    /// await UIApplication.shared.open(transfer.appended(to: URL(string: "https://app.example.com/login")!))
    /// ```
    ///
    /// The exchange spends the refresh token as a renewal does, so it follows the renewals' rules: it waits for a
    /// renewal under way here or in another process and holds the session's lease while it runs; a refresh token
    /// the provider rotates in the answer is stored; `invalid_grant` ends the session. The transfer token is
    /// never stored, logged or shared between callers: each call gets its own, single use.
    ///
    /// - Parameter audience: Sent as `audience` when given (Auth0: `urn:<tenant domain>:session_transfer`).
    /// - Throws: ``SessionKitError/Code/signInRequired`` when there is no session or refresh token, or the provider
    ///   ended it; ``SessionKitError/Code/providerError`` when the provider refused (`unauthorized_client`: the
    ///   client may not create session transfer tokens), and the session is kept; a retryable error for a transient
    ///   failure.
    public func sessionTransferToken(audience: String? = nil) async throws(SessionKitError) -> SessionTransferToken {
        // Any renewal under way spends the same refresh token: it finishes first, and this one runs alone.
        while let other = renewal.withLock({ $0 }) {
            _ = await other.task.result
            renewal.withLock { if $0 === other { $0 = nil } }
        }
        let box = TransferSlot()
        let running = RunningRenewal(
            target: .exclusive(UUID()),
            task: Task { try await self.transferUnderLease(audience: audience, into: box) })
        renewal.withLock { $0 = running }
        let result = await running.task.result
        renewal.withLock { if $0 === running { $0 = nil } }
        do {
            _ = try result.get()
        } catch {
            throw ProviderClient.wrap(error)
        }
        guard let token = box.token.withLock({ $0 }) else {
            throw SessionKitError(code: .invalidResponse, message: "no session transfer token came back; try again")
        }
        return token
    }

    /// Takes the session's lease (waiting for another instance's renewal), then trades the refresh token.
    private func transferUnderLease(audience: String?, into box: TransferSlot)
        async throws(SessionKitError) -> Credentials
    {
        _ = try await settlePendingRenewal(readingJournal: true)
        let deadline = ContinuousClock.now + policy.waitTimeout
        var record = try await loadRecord()
        while true {
            guard let current = record.credentials else {
                throw SessionKitError(code: .signInRequired, message: "no session is stored; sign in")
            }
            let epoch = changes.epoch
            switch try await acquireLease(expecting: record.generation) {
            case .acquired(let generation):
                return try await transfer(current, audience: audience, leasedGeneration: generation, into: box)
            case .refused(let stored):
                guard let lease = stored.renewal, lease.isActive(at: clock.now()) else {
                    record = stored
                    continue
                }
                record = try await waitForOtherRenewal(after: stored.generation, until: deadline, since: epoch)
            }
        }
    }

    /// Trades `current`'s refresh token under the lease at `leasedGeneration`; stores a rotated refresh token
    /// before anything else, then hands the transfer token to `box`.
    private func transfer(
        _ current: Credentials, audience: String?, leasedGeneration: UInt64, into box: TransferSlot
    ) async throws(SessionKitError) -> Credentials {
        let answer: ProviderClient.SessionTransferAnswer
        do {
            answer = try await provider.sendSessionTransfer(current, audience: audience)
        } catch  where error.oauthError == "invalid_grant" {
            // Another process may have stored newer credentials meanwhile: then the call may be tried again.
            _ = try await endSession(after: error, leasedGeneration: leasedGeneration)
            throw SessionKitError(
                code: .serverError,
                message: "the refresh token was renewed elsewhere while it was traded; try again",
                underlyingError: error)
        } catch {
            await releaseLease(leasedGeneration)
            throw error
        }
        var kept = current
        if let rotated = answer.refreshToken {
            kept.refreshToken = rotated
            kept = try await commitRenewal(kept, replacing: current, leasedGeneration: leasedGeneration, announce: true)
        } else {
            await releaseLease(leasedGeneration)
        }
        let token = try answer.token.get()
        box.token.withLock { $0 = token }
        return kept
    }
}

/// Where the exchange's task leaves the transfer token for the call that started it (and no other).
final class TransferSlot: Sendable {
    let token = Mutex<SessionTransferToken?>(nil)
}
