import Logging

extension SessionManager {
    /// Deletes this account's session when it cannot be read (the stored record is damaged, or the store
    /// was written with another key), so that the user can sign in again. A readable session is left alone.
    ///
    /// Nothing can be revoked, because the tokens cannot be read. When the whole store is unreadable, every
    /// item of its service goes with it: they were unreadable too.
    ///
    /// ```swift
    /// do {
    ///     try await session.store(credentials)
    /// } catch let error where error.code == .storeCorrupted {
    ///     try await session.discardUnreadableSession()     // say so to the user, then store again
    ///     try await session.store(credentials)
    /// }
    /// ```
    ///
    /// - Returns: Whether anything was deleted.
    /// - Throws: ``SessionKitError/Code/storeUnavailable`` when the store cannot be written now.
    @discardableResult
    public func discardUnreadableSession() async throws(SessionKitError) -> Bool {
        guard try await coordinator.deleteIfUnreadable() else { return false }
        return await forgetDiscarded()
    }

    private func forgetDiscarded() async -> Bool {
        cache.drop()
        await dropPendingRenewal()
        states.publish(.signedOut)
        logger?.notice("unreadable session deleted", metadata: ["account": "\(account)"])
        return true
    }
}
