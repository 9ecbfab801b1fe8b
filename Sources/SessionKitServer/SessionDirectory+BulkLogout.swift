public import SessionKit

extension SessionDirectory {
    /// How many logouts ``logout(accounts:revoke:maxConcurrent:)`` keeps in flight at once unless told otherwise.
    public static let defaultLogoutConcurrency = 32

    /// Ends the sessions stored under `accounts` (``SessionID/account`` values), each as ``logout(account:revoke:)``
    /// ends one, with up to `maxConcurrent` under way at once: a user with a thousand sessions is signed out in
    /// the time of a few dozen store writes and revocations, not a thousand in a row. Each session is cleared in the
    /// store (every instance hears of it) before its refresh token is revoked, and a revocation that fails does not
    /// keep its session, as with one logout.
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
        let outcome = await withTaskGroup(of: Result<Bool, SessionKitError>.self) { group in
            var tally = LogoutTally()
            var inFlight = 0
            for account in accounts {
                if inFlight == limit, let result = await group.next() {
                    inFlight -= 1
                    tally.add(result)
                }
                guard tally.failure == nil else { break }
                group.addTask { await self.endOne(account: account, revoke: revoke) }
                inFlight += 1
            }
            for await result in group { tally.add(result) }
            return tally
        }
        if let failure = outcome.failure { throw failure }
        return outcome.ended
    }

    /// One logout of a bulk logout, its failure as a value: whether the account held a session.
    private func endOne(account: String, revoke: Bool) async -> Result<Bool, SessionKitError> {
        do throws(SessionKitError) {
            return .success(try await logout(account: account, revoke: revoke).hadSession)
        } catch {
            return .failure(error)
        }
    }
}

/// What the logouts of a bulk logout came to: how many ended a session, and the first failure.
private struct LogoutTally {
    var ended = 0
    var failure: SessionKitError?

    mutating func add(_ result: Result<Bool, SessionKitError>) {
        switch result {
        case .success(let hadSession): if hadSession { ended += 1 }
        case .failure(let error): if failure == nil { failure = error }
        }
    }
}
