#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension SecureStoreError {
    /// Maps a failed system call to a store error whose message says what failed and what to do.
    ///
    /// - `EACCES`, `EPERM`, `ELOOP` (a symbolic link where a store file belongs): ``Code/permissionDenied``.
    /// - `EIO`, `ENOSPC`, `EDQUOT`, `EROFS`, `EFBIG`: ``Code/ioFailure``.
    /// - Anything else: ``Code/unavailable``.
    ///
    /// - Parameter action: What the store was doing, such as "reading the store file".
    init(_ error: SystemCallError, while action: String) {
        let reason = String(cString: strerror(error.errno))
        switch error.errno {
        case EACCES, EPERM:
            self.init(
                code: .permissionDenied,
                message: "\(action) failed: permission denied on '\(error.path)'; it must belong to the current "
                    + "user (folder mode 0700, files 0600)",
                underlyingError: error
            )
        case ELOOP:
            self.init(
                code: .permissionDenied,
                message: "\(action) failed: '\(error.path)' is a symbolic link, which the store refuses to "
                    + "follow; replace it with a regular file or folder",
                underlyingError: error
            )
        case EIO, ENOSPC, EDQUOT, EROFS, EFBIG:
            self.init(
                code: .ioFailure,
                message: "\(action) failed on '\(error.path)': \(reason); check free disk space and that the "
                    + "file system is writable, then try again",
                underlyingError: error
            )
        default:
            self.init(
                code: .unavailable,
                message: "\(action) failed on '\(error.path)': \(reason); try again later",
                underlyingError: error
            )
        }
    }
}
