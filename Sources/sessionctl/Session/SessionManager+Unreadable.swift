import SessionKit

extension SessionManager {
    /// Stores `credentials`; when the stored session cannot be read (damaged, or another key), says so on
    /// standard error, deletes it and stores again, so that signing in is always the way out.
    func storeReplacingUnreadable(_ credentials: Credentials) async throws(SessionKitError) {
        do {
            try await store(credentials)
        } catch  where error.code == .storeCorrupted {
            Terminal.err("sessionctl: warning: \(error.message); it is deleted and replaced by this sign-in")
            try await discardUnreadableSession()
            try await store(credentials)
        }
    }
}
