import Foundation
import Testing

@testable import SessionKit

#if canImport(Glibc)
    import Glibc
#endif

/// A renewal lease is judged dead by its pid only where that pid means the same process: same host, same boot,
/// same pid namespace. Containers that share a host name (or a volume) but not a pid namespace must wait for the
/// lease's expiry instead of taking over a renewal that is still running.
@Suite("Renewal lease identity")
struct LeaseIdentityTests {
    /// A pid that no process has here.
    static func deadPID() -> Int32 {
        var pid: Int32 = 4_000_000
        while kill(pid, 0) == 0 || errno != ESRCH { pid -= 1 }
        return pid
    }

    @Test("this process's identity names the host, and on Linux the boot and the pid namespace")
    func identity() {
        #expect(RenewalLease.currentHost.hasPrefix(ProcessInfo.processInfo.hostName))
        #if os(Linux)
            #expect(RenewalLease.currentHost.contains("|boot:"))
            #expect(RenewalLease.currentHost.contains("|pid:["), "\(RenewalLease.currentHost)")
        #endif
    }

    @Test("a dead pid ends the lease only in this pid namespace; a container with our host name waits for expiry")
    func otherNamespace() {
        let now = Date()
        let pid = Self.deadPID()
        let here = RenewalLease(
            owner: "a", pid: pid, host: RenewalLease.currentHost, startedAt: now, expiresAt: now + 30)
        #expect(!here.isActive(at: now), "a dead process of this namespace holds nothing")
        let container = RenewalLease(
            owner: "b", pid: pid, host: ProcessInfo.processInfo.hostName + "|boot:x|pid:[1]", startedAt: now,
            expiresAt: now + 30)
        #expect(container.isActive(at: now), "pid \(pid) there may be alive: wait")
        #expect(!container.isActive(at: now + 31), "until the lease expires")
        let sameNameOnly = RenewalLease(
            owner: "c", pid: pid, host: ProcessInfo.processInfo.hostName, startedAt: now, expiresAt: now + 30)
        #expect(sameNameOnly.isActive(at: now), "a host name alone (as older records have) proves nothing")
    }
}
