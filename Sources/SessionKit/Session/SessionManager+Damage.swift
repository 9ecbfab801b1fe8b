import Logging
import SecureStore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
        let data: Data?
        do {
            data = try await store.data(forKey: storeKey)
        } catch  where error.code == .corrupted || error.code == .keyMismatch {
            do {
                try await store.deleteAll()
            } catch {
                throw storeFailure(error)
            }
            return await forgetDiscarded()
        } catch {
            throw storeFailure(error)
        }
        guard let data, (try? Self.decode(data)) == nil else { return false }
        do {
            try await store.deleteItem(forKey: storeKey)
        } catch {
            throw storeFailure(error)
        }
        return await forgetDiscarded()
    }

    private func forgetDiscarded() async -> Bool {
        cache.withLock { $0 = nil }
        await dropPendingRenewal()
        states.publish(.signedOut)
        logger?.notice("unreadable session deleted", metadata: ["account": "\(account)"])
        return true
    }
}
