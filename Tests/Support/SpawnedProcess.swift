package import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`, its standard input, output and error on socket pairs: what the tests use
/// instead of Foundation's `Process`.
///
/// On Linux, `Process.run()` in Swift 6.3 sometimes crashes the whole test process: it reads `/proc/self/fd` with a
/// 256-byte copy of each directory entry, past the end of glibc's buffer when an entry ends a page
/// (swift-corelibs-foundation #5472, fixed after 6.3.1). A suite that starts hundreds of processes while holding
/// hundreds of sockets hits it now and then (seen once in a local run of this suite). `posix_spawn` reads nothing
/// of the kind, and with every descriptor of ours close-on-exec the child gets its three streams and nothing else.
///
/// The part of `Process`'s interface the tests use: ``isRunning``, ``terminationStatus``, ``terminationReason``,
/// ``processIdentifier`` and ``terminate()``.
package final class SpawnedProcess: Sendable {
    /// How the process ended.
    package enum TerminationReason: Sendable, Equatable {
        /// It exited, with ``SpawnedProcess/terminationStatus``.
        case exit
        /// A signal ended it; ``SpawnedProcess/terminationStatus`` is the signal's number.
        case uncaughtSignal
    }

    /// Why starting a process failed.
    package struct SpawnFailed: Error, CustomStringConvertible {
        /// The program.
        package let path: String
        /// The `errno` of the failed call.
        package let code: Int32
        /// The program and the system's reason.
        package var description: String { "could not start \(path): \(String(cString: strerror(code)))" }
    }

    /// The process id.
    package let processIdentifier: pid_t
    /// Writes to the process's standard input; close it to send end of file.
    package let standardInput: FileHandle
    /// Reads the process's standard output.
    package let standardOutput: FileHandle
    /// Reads the process's standard error.
    package let standardError: FileHandle
    private let ended = Mutex<(reason: TerminationReason, status: Int32)?>(nil)

    /// Starts `path` with `arguments` and `environment`, each standard stream on a socket pair of its own.
    package init(path: String, arguments: [String], environment: [String: String]) throws {
        // Socket pairs, close-on-exec from the start: no other child started meanwhile inherits our ends (Foundation's
        // `Pipe` and `pipe()` make inheritable descriptors, and `pipe2` is not imported here).
        var pairs: [(ours: FileHandle, child: FileHandle)] = []
        for _ in 0..<3 {
            var ends: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
                throw SpawnFailed(path: path, code: errno)
            }
            pairs.append(
                (
                    FileHandle(fileDescriptor: ends[0], closeOnDealloc: true),
                    FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
                ))
        }
        // The child's ends become its standard input, output and error; ours are the other ends.
        let childEnds = pairs.map(\.child)
        defer { for end in childEnds { try? end.close() } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in childEnds.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, source.fileDescriptor, Int32(target))
        }
        // Nothing else of ours goes to the child: a listening socket it inherited would keep its port taken after
        // the test closed it (as Foundation's Process, which closes them all, never let happen).
        Self.closeOthers(&actions)
        // Default signal handling and no blocked signals, whatever the test process ignores (SIGPIPE).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        var none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnFailed(path: path, code: result) }
        processIdentifier = pid
        standardInput = pairs[0].ours
        standardOutput = pairs[1].ours
        standardError = pairs[2].ours
    }

    /// Whether the process is still running (reaps it once it ended).
    package var isRunning: Bool { reap() == nil }

    /// The exit status, or the signal that ended the process; 0 while it runs.
    package var terminationStatus: Int32 { reap()?.status ?? 0 }

    /// How the process ended; `.exit` while it runs.
    package var terminationReason: TerminationReason { reap()?.reason ?? .exit }

    /// Sends SIGTERM.
    package func terminate() {
        kill(processIdentifier, SIGTERM)
    }

    /// Blocks until the process ends, as `Process.waitUntilExit()` does; in async code poll ``isRunning`` instead.
    package func waitUntilExit() {
        while isRunning { usleep(2_000) }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not
    /// import: found at run time.
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }

    /// Makes the child close every descriptor from 3 up, or, where glibc cannot, marks ours close-on-exec.
    private static func closeOthers(_ actions: inout posix_spawn_file_actions_t) {
        if let addCloseFrom, addCloseFrom(&actions, 3) == 0 { return }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    private func reap() -> (reason: TerminationReason, status: Int32)? {
        ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            var result: pid_t
            repeat {
                result = waitpid(processIdentifier, &status, WNOHANG)
            } while result == -1 && errno == EINTR
            guard result == processIdentifier else { return nil }
            let signal = status & 0x7f
            ended = signal == 0 ? (.exit, (status >> 8) & 0xff) : (.uncaughtSignal, signal)
            return ended
        }
    }
}
