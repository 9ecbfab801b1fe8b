import SecureStore
import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The access token git last reported refused (`erase`), as a digest in the secure store: the next `get` that would
/// answer with it renews instead. Processes share it, and renewing is single-flight across them.
struct StaleToken {
    /// The profile's secure store.
    let store: any SecureStore
    /// The profile whose token it is.
    let profile: String

    private var key: String { "sessionctl.git-stale-token." + profile }

    private static func digest(_ token: String) -> String {
        Hex.sha256(token)
    }

    /// Notes `token` as refused.
    func mark(_ token: String) throws(SessionKitError) {
        do { try store.setString(Self.digest(token), forKey: key) } catch { throw SessionKitError(storeError: error) }
    }

    /// Whether `token` is the one noted as refused.
    func matches(_ token: String) throws(SessionKitError) -> Bool {
        do { return try store.string(forKey: key) == Self.digest(token) } catch {
            throw SessionKitError(storeError: error)
        }
    }

    /// Forgets the refused token (after a renewal replaced it).
    func clear() throws(SessionKitError) {
        do { try store.deleteItem(forKey: key) } catch { throw SessionKitError(storeError: error) }
    }
}
