package import SecureStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension AsyncSecureStore {
    /// Deletes the session record under `key` when it cannot be read (damaged, or written with another key), and
    /// every item of this store's service only when the store itself cannot be read (the item cannot be deleted
    /// alone): they were unreadable too. A
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
            // The item cannot be read, or the whole store cannot. Where the item can be deleted alone (a row among
            // others in a shared database), only the item goes: one unreadable row must not sign out every user of
            // the service. A store that must read itself to delete an item (one file holding every item) cannot
            // when that file is damaged, and goes whole.
            if (try? await deleteItem(forKey: key)) != nil { return true }
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
