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

/// Another program run to its end, its output and errors captured: how `git-credential configure` runs `git config`.
///
/// `posix_spawnp` with this process's environment, the program looked up in `PATH`, standard input `/dev/null`;
/// Foundation's `Process` would bring all of Foundation into sessionctl, which uses FoundationEssentials.
enum ChildProcess {
    /// How a run ended.
    struct Result {
        /// The exit status; 128 plus the signal's number when a signal ended it.
        let status: Int32
        /// Everything the program wrote on standard output.
        let stdout: String
        /// Everything the program wrote on standard error.
        let stderr: String
    }

    /// The program could not be started.
    struct StartFailure: Error, CustomStringConvertible {
        /// The program's name.
        let program: String
        /// The `errno` of the failed call.
        let code: Int32
        /// The program and the system's reason.
        var description: String { "cannot run \(program): \(String(cString: strerror(code)))" }
    }

    /// Runs `program` (a name looked up in `PATH`, or a path) with `arguments`, and waits for it to end.
    static func run(_ program: String, _ arguments: [String]) throws(StartFailure) -> Result {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { throw StartFailure(program: program, code: errno) }
        guard pipe(&errors) == 0 else {
            let code = errno
            close(output[0])
            close(output[1])
            throw StartFailure(program: program, code: code)
        }
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        for descriptor in output + errors { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        let started = argv.withUnsafeBufferPointer { argv in
            posix_spawnp(&pid, program, &actions, nil, argv.baseAddress!, environ)  // never empty: it ends with nil
        }
        close(output[1])
        close(errors[1])
        defer {
            close(output[0])
            close(errors[0])
        }
        guard started == 0 else { throw StartFailure(program: program, code: started) }
        let (stdout, stderr) = readToEnd(output[0], errors[0])
        var status: Int32 = 0
        var waited: pid_t
        repeat { waited = waitpid(pid, &status, 0) } while waited == -1 && errno == EINTR
        // Exited: the low seven bits are zero and the status is in the next eight; else a signal's number.
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(
            status: exit, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Everything written to `first` and `second` until both are closed, read as it comes (a program that fills one
    /// pipe while nobody reads it would wait forever).
    private static func readToEnd(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
        var collected: [[UInt8]] = [[], []]
        var watched = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0),
        ]
        var chunk = [UInt8](repeating: 0, count: 4096)
        while watched.contains(where: { $0.fd >= 0 }) {
            let ready = poll(&watched, nfds_t(watched.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in watched.indices where watched[index].fd >= 0 && watched[index].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(watched[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[index] += chunk[..<count]
                } else if count == 0 || errno != EINTR {
                    watched[index].fd = -1  // poll(2) skips a negative descriptor
                }
            }
        }
        return (collected[0], collected[1])
    }
}
