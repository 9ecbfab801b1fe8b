import Foundation
import SessionKitTestSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// `securestore-tool FOLDER SERVICE select POLICY REPORT TIMEOUT_MS` in a child process with a chosen
/// session bus: GLib caches the session bus per process, so "no D-Bus" can only be tested in a new one.
enum SelectionChild {
    /// The session bus the child sees.
    enum Bus {
        /// No bus at all: no `DBUS_SESSION_BUS_ADDRESS`, no `$XDG_RUNTIME_DIR/bus`, no X11 display.
        case none
        /// A bus address whose socket accepts connections and never answers.
        case silent(socketPath: String)
        /// This process's bus.
        case inherited
    }

    struct Run {
        let status: ChildProcess.Termination
        let report: String
        let elapsed: Duration
    }

    static func run(
        folder: String, service: String, policy: String, bus: Bus, timeoutMilliseconds: Int = 5000
    ) async throws -> Run {
        var environment = ProcessInfo.processInfo.environment
        switch bus {
        case .none:
            environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            environment["DISPLAY"] = nil
            environment["XDG_RUNTIME_DIR"] = folder  // holds no "bus" socket
        case .silent(let socketPath):
            environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + socketPath
        case .inherited:
            break
        }
        let report = folder + "/report-\(UUID().uuidString).txt"
        let started = ContinuousClock.now
        let child = try ChildProcess.spawn(
            try ChildProcess.toolPath(),
            [folder, service, "select", policy, report, String(timeoutMilliseconds)],
            environment: environment
        )
        // Timed on the waiting thread: the test's task may resume later on a busy machine, and that delay is
        // not the child's.
        let (status, elapsed) = try await onDedicatedThread { (child.wait(), ContinuousClock.now - started) }
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? "(no report)"
        try? FileManager.default.removeItem(atPath: report)
        return Run(status: status, report: text, elapsed: elapsed)
    }
}

/// A Unix socket that accepts connections into its backlog and never answers: a keyring that hangs.
final class SilentSocket {
    let path: String
    private let fd: Int32

    init(folder: String) throws {
        path = folder + "/silent.sock"
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else {
            throw ChildProcess.SpawnFailed(errno: errno)
        }
    }

    deinit { close(fd) }
}
