#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A failed system call: which call, on which path, and the `errno` it left.
///
/// Used as the ``SecureStoreError/underlyingError`` of file-store errors. It holds paths, never data.
struct SystemCallError: Error, CustomStringConvertible {
    /// The name of the call, such as `open` or `rename`.
    let call: String
    /// The path the call worked on.
    let path: String
    /// The `errno` value the call left.
    let errno: Int32

    var description: String {
        "\(call)(\(path)) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// Whether the call failed because the path does not exist.
    var isNotFound: Bool { errno == ENOENT }
}

/// Thin wrappers over the POSIX calls the file store needs: they retry `EINTR` and throw
/// ``SystemCallError`` instead of returning `-1`.
enum SystemCall {
    /// Calls `body` until it returns something other than `-1` with `errno == EINTR`.
    static func retrying(
        _ call: String,
        _ path: String,
        _ body: () -> Int32
    ) throws(SystemCallError) -> Int32 {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = currentErrno()
            if code == EINTR { continue }
            throw SystemCallError(call: call, path: path, errno: code)
        }
    }

    /// Opens `path` with `flags` (always close-on-exec) and, when creating, `mode`.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemCallError) -> Int32 {
        try retrying("open", path) {
            #if canImport(Darwin)
                Darwin.open(path, flags | O_CLOEXEC, mode)
            #elseif canImport(Glibc)
                Glibc.open(path, flags | O_CLOEXEC, mode)
            #else
                Musl.open(path, flags | O_CLOEXEC, mode)
            #endif
        }
    }

    /// Sets the mode of an open file or folder, whatever the process umask is.
    static func setMode(_ fd: Int32, _ mode: mode_t, path: String) throws(SystemCallError) {
        _ = try retrying("fchmod", path) { fchmod(fd, mode) }
    }

    /// The `stat` of an open file.
    static func status(_ fd: Int32, path: String) throws(SystemCallError) -> stat {
        var info = stat()
        _ = try retrying("fstat", path) { fstat(fd, &info) }
        return info
    }

    /// Flushes an open file or folder to stable storage (`F_FULLFSYNC` on Darwin).
    static func sync(_ fd: Int32, path: String) throws(SystemCallError) {
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return }
        #endif
        _ = try retrying("fsync", path) { fsync(fd) }
    }

    /// Opens the folder at `path` and flushes it, so that a rename or unlink in it is durable.
    static func syncFolder(_ path: String) throws(SystemCallError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try sync(fd, path: path)
    }

    /// Removes the file at `path`; a missing file is not an error.
    static func removeIfPresent(_ path: String) throws(SystemCallError) {
        if unlink(path) == 0 { return }
        let code = currentErrno()
        if code == ENOENT { return }
        throw SystemCallError(call: "unlink", path: path, errno: code)
    }

    /// The calling thread's `errno`.
    static func currentErrno() -> Int32 {
        #if canImport(Darwin)
            Darwin.errno
        #elseif canImport(Glibc)
            Glibc.errno
        #else
            Musl.errno
        #endif
    }
}
