import Foundation
import NIOCore

/// The CPUs this process may run on, so that NIO starts no more event loops than it can use.
///
/// NIO sizes its shared event loop group from the machine's cores, less any cgroup quota or cpuset, but not from the
/// process's CPU affinity (`taskset`, systemd's `CPUAffinity=`). A back end confined to one CPU of a larger machine
/// then runs several event loops that take turns on that CPU: with two instances on one CPU, a forwarded request
/// cost 80 µs of CPU with one loop each against 92–95 µs with two (`UPSTREAM=nginx PIN=1 Benchmarks/bff.sh`).
enum CPUAffinity {
    /// The environment variable through which NIO's shared group takes its size.
    static let loopCountVariable = "NIO_SINGLETON_GROUP_LOOP_COUNT"

    /// How many CPUs the affinity mask allows, from `Cpus_allowed_list` in `/proc/self/status` (such as `0-3,6`),
    /// or `nil` where it cannot be read (or off Linux).
    static func allowedCPUs() -> Int? {
        #if os(Linux)
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
            else { return nil }
            return count(list: line.dropFirst("Cpus_allowed_list:".count))
        #else
            return nil
        #endif
    }

    /// The number of CPUs in a Linux CPU list (`0-3,6` is five), or `nil` when it is not one.
    static func count(list: Substring) -> Int? {
        var total = 0
        for range in list.split(separator: ",") {
            let bounds = range.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            switch bounds.count {
            case 1:
                guard bounds[0] != nil else { return nil }
                total += 1
            case 2:
                guard let low = bounds[0], let high = bounds[1], low <= high else { return nil }
                total += high - low + 1
            default: return nil
            }
        }
        return total > 0 ? total : nil
    }

    /// Sizes NIO's shared event loop group to the CPUs the affinity allows, when that is fewer than NIO would start
    /// and nobody chose a size already. Call it first thing in `main`, before anything uses the group (it is created,
    /// with its size read from the environment, on first use) and while there is only the one thread.
    static func sizeEventLoopsToAffinity() {
        guard getenv(loopCountVariable) == nil, let allowed = allowedCPUs(), allowed < System.coreCount else { return }
        setenv(loopCountVariable, String(allowed), 0)
    }
}
