#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An exclusive advisory lock (`flock`) on a sidecar lock file, held until ``unlock()``.
///
/// `flock` locks belong to an open file description, so two threads of one process that each call
/// ``acquire(path:timeout:)`` exclude each other just as two processes do. The lock file is empty, is
/// created with mode 0600 and is never deleted: deleting it while another process waits on it would let
/// two holders in at once.
package struct FileLock {
    /// The descriptor of the open lock file; closing it releases the lock.
    private let fd: Int32

    /// Takes the lock on `path`, creating the file if needed.
    ///
    /// Polls with `LOCK_NB` and a growing pause (1 ms up to 50 ms) instead of blocking, so a holder that
    /// hangs cannot stall the caller for longer than `timeout`.
    ///
    /// - Throws: ``SecureStoreError/Code/unavailable`` when the lock is still held after `timeout`,
    ///   or the mapped error when the lock file cannot be opened.
    package static func acquire(path: String, timeout: Duration) throws(SecureStoreError) -> FileLock {
        let fd: Int32
        do {
            fd = try SystemCall.open(path, O_RDWR | O_CREAT | O_NOFOLLOW, mode: 0o600)
            try SystemCall.setMode(fd, 0o600, path: path)
        } catch {
            throw SecureStoreError(error, while: "opening the store lock file")
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pauseMicroseconds: UInt32 = 1000
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return FileLock(fd: fd) }
            let code = SystemCall.currentErrno()
            if code == EINTR { continue }
            guard code == EWOULDBLOCK || code == EAGAIN else {
                close(fd)
                throw SecureStoreError(
                    SystemCallError(call: "flock", path: path, errno: code),
                    while: "locking the store"
                )
            }
            if clock.now >= deadline {
                close(fd)
                throw SecureStoreError(
                    code: .unavailable,
                    message: "another process holds the store lock '\(path)' (waited \(timeout)); try again "
                        + "later, or raise the lock timeout if that process is expected to be slow",
                    underlyingError: SystemCallError(call: "flock", path: path, errno: code)
                )
            }
            usleep(pauseMicroseconds)
            pauseMicroseconds = min(pauseMicroseconds * 2, 50_000)
        }
    }

    /// Releases the lock and closes the lock file.
    package func unlock() {
        _ = flock(fd, LOCK_UN)
        close(fd)
    }
}
