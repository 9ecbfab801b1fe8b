import CoreMetrics
public import SessionKit
import Synchronization

extension SessionDirectory {
    /// How many logouts ``logout(accounts:revoke:maxConcurrent:)`` keeps in flight at once unless told otherwise:
    /// more than the PostgreSQL store sends in one statement (100), so that it sends whole batches at once, none
    /// lingering for more.
    public static let defaultLogoutConcurrency = 128

    /// Ends the sessions stored under `accounts` (``SessionID/account`` values), each as ``logout(account:revoke:)``
    /// ends one, with up to `maxConcurrent` under way at once: a user with a thousand sessions is signed out in
    /// the time of a few batched store writes, not a thousand in a row. Every session is cleared in the store first
    /// (every instance hears of it), and only then are the refresh tokens revoked, `maxConcurrent` at a time: the
    /// sessions end in the time of the writes alone. A revocation that fails does not keep its session, as with one
    /// logout; the sessions cleared before a store failure still have their tokens revoked.
    ///
    /// - Parameters:
    ///   - accounts: The store accounts of the sessions to end; an account with no session costs one read.
    ///   - revoke: Whether each session's refresh token is revoked at the provider.
    ///   - maxConcurrent: The most logouts in flight at once (at least 1): bounds the store connections and provider
    ///     requests one bulk logout takes.
    /// - Returns: How many of the accounts held a session.
    /// - Throws: The first failure (``SessionKit/SessionKitError/Code/storeUnavailable`` when the store cannot be
    ///   written): no further logout starts, those already under way finish, and the sessions not reached are kept,
    ///   so call again with the same accounts to end the rest (those already ended cost one read each).
    @discardableResult
    public func logout(
        accounts: some Sequence<String>, revoke: Bool = true, maxConcurrent: Int = defaultLogoutConcurrency
    ) async throws(SessionKitError) -> Int {
        let limit = max(1, maxConcurrent)
        let outcome = await withTaskGroup(of: Result<Ended, SessionKitError>.self) { group in
            var tally = LogoutTally()
            var inFlight = 0
            for account in accounts {
                if inFlight == limit, let result = await group.next() {
                    inFlight -= 1
                    tally.add(result)
                }
                guard tally.failure == nil else { break }
                group.addTask { await self.clearOne(account: account) }
                inFlight += 1
            }
            for await result in group { tally.add(result) }
            return tally
        }
        if revoke { await revokeAll(outcome.cleared, limit: limit) }
        if let failure = outcome.failure { throw failure }
        return outcome.ended
    }

    /// A session a logout cleared: its manager and what to revoke.
    struct Ended: Sendable {
        let manager: SessionManager
        let session: SessionManager.EndedSession
    }

    /// The first half of a logout (one, or one of a bulk logout): the session cleared in the store and dropped
    /// from memory; its manager revokes afterwards.
    func clearForLogout(account: String) async throws(SessionKitError) -> Ended {
        let manager =
            cache.withLock { $0.manager(account: account) }
            ?? makeManager(account: account)
        defer { cache.withLock { $0.remove(account: account) } }
        let session = try await manager.clearForLogout()
        if session.hadSession { metrics.ended.increment() }
        return Ended(manager: manager, session: session)
    }

    /// ``clearForLogout(account:)`` with its failure as a value, for the task group.
    private func clearOne(account: String) async -> Result<Ended, SessionKitError> {
        do throws(SessionKitError) {
            return .success(try await clearForLogout(account: account))
        } catch {
            return .failure(error)
        }
    }

    /// Revokes the cleared sessions' refresh tokens, `limit` at a time.
    private func revokeAll(_ cleared: [Ended], limit: Int) async {
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            for ended in cleared where ended.session.refreshToken != nil {
                if inFlight == limit, await group.next() != nil { inFlight -= 1 }
                group.addTask { _ = await ended.manager.finishLogout(ended.session, revoke: true) }
                inFlight += 1
            }
        }
    }
}

/// What the clearing half of a bulk logout came to: the sessions cleared, how many held a session, and the first
/// failure.
private struct LogoutTally {
    var cleared: [SessionDirectory.Ended] = []
    var ended = 0
    var failure: SessionKitError?

    mutating func add(_ result: Result<SessionDirectory.Ended, SessionKitError>) {
        switch result {
        case .success(let session):
            if session.session.hadSession { ended += 1 }
            cleared.append(session)
        case .failure(let error): if failure == nil { failure = error }
        }
    }
}
