package import SecureStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension AsyncSecureStore {
    /// Deletes the session record under `key` when it cannot be read (damaged, or written with another key), and
    /// every item of this store's service when the store itself cannot be read: they were unreadable too. A
    /// readable record is left alone; store failures are reported through `held`. A record or store that a newer
    /// version wrote is never deleted: ``SessionKitError/Code/writtenByNewerVersion`` is thrown.
    ///
    /// - Returns: Whether anything was deleted.
    package func deleteSessionIfUnreadable(forKey key: String, held: HeldSession) async throws(SessionKitError)
        -> Bool
    {
        let data: Data?
        do {
            data = try await self.data(forKey: key)
        } catch  where error.code == .corrupted || error.code == .keyMismatch {
            do {
                try await deleteAll()
            } catch {
                throw held.storeFailure(error)
            }
            return true
        } catch {
            throw held.storeFailure(error)
        }
        guard let data else { return false }
        do {
            _ = try SessionRecord.stored(data)
            return false
        } catch  where error.code == .writtenByNewerVersion {
            // Not damage: a newer SessionKit reads it. Left as it is, and said.
            throw error
        } catch {
            // Damaged: deleted below.
        }
        do {
            try await deleteItem(forKey: key)
        } catch {
            throw held.storeFailure(error)
        }
        return true
    }
}
