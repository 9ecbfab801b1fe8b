import Foundation

/// The printed output every benchmark shares: a header naming the machine, date and commit, then rows.
public enum Report {
    /// Prints the benchmark's title with the machine (cores, memory), the date and the commit.
    public static func header(_ title: String) {
        print("== \(title)")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        print("machine: \(cores) cores, \(String(format: "%.1f", memory)) GiB; date: \(Date().formatted(.iso8601))")
        print("commit: \(commit()); build: \(buildMode)")
    }

    /// One figure: a name, the median with its spread, and the 99th percentile, in a readable unit.
    public static func row(_ name: String, _ stats: Stats, samples: Int) {
        let line =
            "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) median \(time(stats.median)) "
            + "± \(time(stats.mad)) (MAD)  p99 \(time(stats.p99))  min \(time(stats.min))  n=\(samples)"
        print(line)
    }

    /// A duration in nanoseconds as ns, µs or ms.
    public static func time(_ nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: return String(format: "%.1f ns", nanoseconds)
        case ..<1_000_000: return String(format: "%.2f µs", nanoseconds / 1e3)
        default: return String(format: "%.2f ms", nanoseconds / 1e6)
        }
    }

    /// A ratio with two decimals and an ×.
    public static func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }

    /// Whether a target is met, for the summary lines.
    public static func verdict(_ met: Bool) -> String { met ? "MET" : "MISSED" }

    private static var buildMode: String {
        #if DEBUG
            return "debug (figures are not representative: build with -c release)"
        #else
            return "release"
        #endif
    }

    /// `git rev-parse --short HEAD` of the current folder, or `SESSIONKIT_COMMIT` when set.
    private static func commit() -> String {
        if let commit = ProcessInfo.processInfo.environment["SESSIONKIT_COMMIT"] { return commit }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "rev-parse", "--short", "HEAD"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "unknown" }
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            ? "unknown" : text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
