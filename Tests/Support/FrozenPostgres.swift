import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The test cluster of scripts/postgres-start.sh frozen and thawed: every one of its processes stopped with
/// SIGSTOP, as in a network partition or a failover that leaves connections open and unanswered (not refused),
/// and resumed with SIGCONT.
///
/// Freezing stops the whole cluster: only suites that run alone may use it (serialized, in a step of their own or
/// under `--no-parallel`).
package struct FrozenPostgres: Sendable {
    /// The processes that ``freeze()`` stopped: the postmaster and its children.
    let pids: [pid_t]

    /// Why the cluster could not be frozen.
    package struct Failure: Error, CustomStringConvertible {
        /// What went wrong and what to do.
        package let description: String
    }

    /// Where scripts/postgres-start.sh records the cluster it started in this checkout.
    private static let clusterRecord = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".postgres/dir")

    /// Whether this checkout's scripts/postgres-start.sh cluster is there to be frozen.
    package static var isAvailable: Bool { FileManager.default.fileExists(atPath: clusterRecord.path) }

    /// The note of a suite skipped because ``isAvailable`` is false.
    package static let unavailableReason =
        "freezing PostgreSQL needs the cluster of scripts/postgres-start.sh in this checkout"

    /// Stops the postmaster and its children, and waits until the kernel shows them all stopped.
    ///
    /// - Throws: When this checkout started no cluster, or a process could not be stopped (the others are resumed).
    package static func freeze() throws -> FrozenPostgres {
        guard isAvailable else {
            throw Failure(description: "\(unavailableReason); run scripts/postgres-start.sh first")
        }
        let cluster = try String(contentsOf: clusterRecord, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let pidFile = try String(contentsOfFile: cluster + "/data/postmaster.pid", encoding: .utf8)
        guard let first = pidFile.split(separator: "\n").first, let postmaster = pid_t(first) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        var pids: [pid_t] = []
        for pid in [postmaster] + children(of: postmaster) {
            if kill(pid, SIGSTOP) == 0 {
                pids.append(pid)
            } else if errno != ESRCH || pid == postmaster {
                let code = POSIXErrorCode(rawValue: errno) ?? .EPERM
                FrozenPostgres(pids: pids).thaw()
                throw POSIXError(code)
            }
            // ESRCH for a child: a backend whose connection closed as the list was read has gone; nothing to stop.
        }
        let frozen = FrozenPostgres(pids: pids)
        // Stopping is asynchronous: wait until the kernel shows every process stopped ('T') or gone (a backend
        // that was already exiting), or the test would measure a database that still answers.
        let settled = { (pid: pid_t) in isStopped(pid) || !FileManager.default.fileExists(atPath: "/proc/\(pid)") }
        let deadline = ContinuousClock.now + .seconds(2)
        while !pids.allSatisfy(settled), ContinuousClock.now < deadline { usleep(1000) }
        guard pids.allSatisfy(settled) else {
            frozen.thaw()
            throw POSIXError(.ESRCH)
        }
        return frozen
    }

    /// Whether `/proc/PID/stat` shows the process stopped.
    private static func isStopped(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
    }

    /// Resumes every process that ``freeze()`` stopped.
    package func thaw() {
        for pid in pids { kill(pid, SIGCONT) }
    }

    /// The processes whose parent is `parent`, from /proc.
    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") }),
                pid_t(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) == parent
            else { return nil }
            return pid
        }
    }
}
