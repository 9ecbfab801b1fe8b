import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension SessionRecord {
    /// When a versioned store may lease this record to its first reader for a renewal
    /// (`VersionedSecureStore.leaseIfDue(forKey:dueBy:lease:)`): the access token's expiry, for a
    /// session that can renew and has no renewal under way; `nil` (never) otherwise.
    var dueAt: Date? {
        guard renewal == nil, let credentials, credentials.canRenew else { return nil }
        return credentials.expiresAt
    }

    /// The lease a versioned store keeps beside the record for this process's manager `owner`: its owner text
    /// holds the process id and `RenewalLease.currentHost` too, a line each, so that a lease of a process that
    /// died is taken over at once, as one in the record is.
    static func storeLease(owner: String, until: Date) -> ItemLease {
        ItemLease(owner: "\(owner)\n\(getpid())\n\(RenewalLease.currentHost)", until: until)
    }

    /// Takes the lease a versioned store keeps beside the record, if any, as the record's renewal lease: it is
    /// newer than any in the record, since every write ends it. An owner text that is not three lines (not
    /// written by ``storeLease(owner:until:)``) is a lease that lapses by its expiry only.
    mutating func takeStoreLease(_ lease: ItemLease?) {
        guard let lease else { return }
        let lines = lease.owner.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        let pid = lines.count == 3 ? Int32(lines[1]) : nil
        renewal = RenewalLease(
            owner: pid == nil ? lease.owner : String(lines[0]), pid: pid ?? 0, host: pid == nil ? "" : String(lines[2]),
            startedAt: lease.until, expiresAt: lease.until)
    }
}
