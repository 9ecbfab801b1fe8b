import Foundation
import SessionKitTestSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, for the multi-process and crash tests.
struct ChildProcess {
    /// How a child ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    let pid: pid_t

    /// The test helper executable `name` (`securestore-tool` by default) built beside the test binary.
    static func toolPath(_ name: String = "securestore-tool") throws -> String {
        var folders: [String] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent().path)
        }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            folders.append(URL(fileURLWithPath: exe).deletingLastPathComponent().path)
        }
        folders.append(FileManager.default.currentDirectoryPath + "/.build/debug")
        for folder in folders {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ToolNotFound(name: name, searched: folders)
    }

    struct ToolNotFound: Error, CustomStringConvertible {
        let name: String
        let searched: [String]
        var description: String { "\(name) not found in \(searched); build it with swift build" }
    }

    struct SpawnFailed: Error {
        let errno: Int32
    }

    /// Starts `path` with `arguments` and `environment` (by default this process's), inheriting standard
    /// output and standard error.
    static func spawn(
        _ path: String,
        _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ChildProcess {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, nil, nil, argv, envp)
        guard result == 0 else { throw SpawnFailed(errno: result) }
        return ChildProcess(pid: pid)
    }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits for the child to end on a thread of its own, never on one of Swift's cooperative threads (see
    /// `onDedicatedThread`).
    func termination() async throws -> Termination {
        try await onDedicatedThread { wait() }
    }

    /// Waits for the child to end, blocking the calling thread.
    func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
        return .signaled(status & 0x7f)
    }
}
