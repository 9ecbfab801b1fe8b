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
