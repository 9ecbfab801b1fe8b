import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything SessionKit stores for one account, written as one item so that it changes atomically.
struct SessionRecord: Codable, Sendable, Equatable {
    /// The version of this record's encoded form.
    static let schemaVersion = 1

    var version = Self.schemaVersion
    /// Grows by one with every write; a writer that read generation N and must not overwrite a newer
    /// record writes only if the record is still at N.
    var generation: UInt64 = 0
    var credentials: Credentials?
    var profile: UserProfile?
    /// A renewal under way, so other processes wait for it instead of spending the refresh token again.
    var renewal: RenewalLease?

    /// The record with no session: what logout and a revoked refresh token leave behind. The
    /// generation carries on, so writers that read an earlier one see the change.
    func cleared() -> SessionRecord {
        SessionRecord(generation: generation)
    }
}

/// A claim, by one process, on renewing a session, recorded before the refresh request is sent.
struct RenewalLease: Codable, Sendable, Equatable {
    /// The session manager instance that holds the lease.
    var owner: String
    /// The holder's process id, so that a lease of a process that died can be taken over at once.
    var pid: Int32
    /// The holder's host name: a pid means nothing on another machine sharing the folder.
    var host: String
    /// When the request was about to be sent.
    var startedAt: Date
    /// When the lease lapses even if its holder never clears it.
    var expiresAt: Date

    /// This machine's name, read once: waiting renewers check leases every few milliseconds.
    static let currentHost = ProcessInfo.processInfo.hostName

    /// Whether the lease still excludes other renewers at `now`.
    func isActive(at now: Date) -> Bool {
        guard expiresAt > now else { return false }
        if host == Self.currentHost && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH {
            return false
        }
        return true
    }
}
