#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything SessionKit stores for one account, written as one item so that it changes atomically.
package struct SessionRecord: Codable, Sendable, Equatable {
    /// The version of this record's encoded form.
    package static let schemaVersion = 1

    var version = Self.schemaVersion
    /// Grows by one with every write; a writer that read generation N and must not overwrite a newer
    /// record writes only if the record is still at N.
    package var generation: UInt64 = 0
    /// The session's credentials; `nil` when signed out.
    package var credentials: Credentials?
    var profile: UserProfile?
    /// Access tokens for other APIs, renewed from the session's one refresh token, by
    /// ``RenewalTarget/APIKey/recordKey``. They hold no refresh token and no ID token: those are the session's.
    var apiCredentials: [String: Credentials] = [:]
    /// A renewal under way, so other processes wait for it instead of spending the refresh token again.
    package var renewal: RenewalLease?
    /// The version a ``SecureStore/VersionedSecureStore`` gave the item this record was read from or written
    /// as, for a conditional write: kept by the coordinators of such stores, which alone read it; not stored.
    package var storeVersion: UInt64?

    private enum CodingKeys: String, CodingKey {
        case version, generation, credentials, profile, renewal
        case apiCredentials = "api_credentials"
    }

    /// A record with these fields; an empty one (no session) by default.
    package init(
        version: Int = Self.schemaVersion, generation: UInt64 = 0, credentials: Credentials? = nil,
        profile: UserProfile? = nil, apiCredentials: [String: Credentials] = [:], renewal: RenewalLease? = nil
    ) {
        self.version = version
        self.generation = generation
        self.credentials = credentials
        self.profile = profile
        self.apiCredentials = apiCredentials
        self.renewal = renewal
    }

    /// Reads a record as `Codable` writes it.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            version: try c.decode(Int.self, forKey: .version),
            generation: try c.decode(UInt64.self, forKey: .generation),
            credentials: try c.decodeIfPresent(Credentials.self, forKey: .credentials),
            profile: try c.decodeIfPresent(UserProfile.self, forKey: .profile),
            apiCredentials: try c.decodeIfPresent([String: Credentials].self, forKey: .apiCredentials) ?? [:],
            renewal: try c.decodeIfPresent(RenewalLease.self, forKey: .renewal)
        )
    }

    /// Writes the record; a session without tokens for other APIs is written as before they existed.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(generation, forKey: .generation)
        try c.encodeIfPresent(credentials, forKey: .credentials)
        try c.encodeIfPresent(profile, forKey: .profile)
        if !apiCredentials.isEmpty { try c.encode(apiCredentials, forKey: .apiCredentials) }
        try c.encodeIfPresent(renewal, forKey: .renewal)
    }

    /// The record with no session: what logout and a revoked refresh token leave behind. The
    /// generation carries on, so writers that read an earlier one see the change.
    func cleared() -> SessionRecord {
        SessionRecord(generation: generation)
    }
}

/// A claim, by one process, on renewing a session, recorded before the refresh request is sent.
package struct RenewalLease: Codable, Sendable, Equatable {
    /// The session manager instance that holds the lease.
    package var owner: String
    /// The holder's process id, so that a lease of a process that died can be taken over at once.
    package var pid: Int32
    /// Where the pid means something: the host name, and on Linux the boot and the pid namespace too
    /// (``currentHost``). A pid means nothing on another machine, after a reboot, or in another container.
    package var host: String
    /// When the request was about to be sent.
    package var startedAt: Date
    /// When the lease lapses even if its holder never clears it.
    package var expiresAt: Date

    /// A lease held by `owner` in process `pid` on `host` (``currentHost`` for this process's), from `startedAt`
    /// until `expiresAt`.
    package init(owner: String, pid: Int32, host: String, startedAt: Date, expiresAt: Date) {
        self.owner = owner
        self.pid = pid
        self.host = host
        self.startedAt = startedAt
        self.expiresAt = expiresAt
    }

    /// The pid namespace this process lives in, read once: waiting renewers check leases every few
    /// milliseconds.
    ///
    /// A host name alone is not enough: containers on one machine often share a host name (or a volume)
    /// but not a pid namespace, and there pid 1234 is another process, or none. On Linux the name is
    /// therefore joined with the kernel's boot id and the pid namespace's inode (`/proc/self/ns/pid`), so a
    /// lease is judged dead by its pid only where that pid is this namespace's; anywhere else it lapses by
    /// its expiry. Elsewhere the host name is all there is.
    package static let currentHost: String = {
        var identity = ProcessInfo.processInfo.hostName
        #if os(Linux)
            if let boot = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) {
                identity += "|boot:" + boot.filter { !$0.isWhitespace }
            }
            var buffer = [CChar](repeating: 0, count: 64)
            let count = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
            if count > 0 {
                identity += "|" + String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        #endif
        return identity
    }()

    /// Whether the lease still excludes other renewers at `now`.
    package func isActive(at now: Date) -> Bool {
        guard expiresAt > now else { return false }
        if host == Self.currentHost && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH {
            return false
        }
        return true
    }
}
