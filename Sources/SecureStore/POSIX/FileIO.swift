#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whole-file reads and writes over a file descriptor, looping over short reads and writes.
enum FileIO {
    /// Reads everything from `fd` until end of file.
    ///
    /// Reads in chunks of the size `fstat` reports plus one byte (so that one read and one more that returns 0
    /// read a file that did not change), at most 64 KiB: a store item of a few kilobytes costs neither a 64 KiB
    /// buffer nor zeroing it (`sessionctl token` reads two files per run).
    static func readAll(_ fd: Int32, path: String) throws(SystemCallError) -> Data {
        let info = try SystemCall.status(fd, path: path)
        let size = Int(clamping: min(info.st_size, 1 << 26))
        var result = Data()
        result.reserveCapacity(size)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(size + 1, 64 * 1024), alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count == 0 { return result }
            if count < 0 {
                let code = SystemCall.currentErrno()
                if code == EINTR || code == EAGAIN { continue }
                throw SystemCallError(call: "read", path: path, errno: code)
            }
            result.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Writes all of `data` to `fd`.
    static func writeAll(_ data: Data, to fd: Int32, path: String) throws(SystemCallError) {
        var offset = 0
        while offset < data.count {
            let count = data.withUnsafeBytes { raw in
                write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            if count < 0 {
                let code = SystemCall.currentErrno()
                if code == EINTR || code == EAGAIN { continue }
                throw SystemCallError(call: "write", path: path, errno: code)
            }
            offset += count
        }
    }

    /// Reads the whole file at `path`, or returns `nil` when there is no such file.
    ///
    /// Symbolic links are not followed: a store file must be a regular file of its own.
    static func readFileIfPresent(_ path: String) throws(SystemCallError) -> Data? {
        let fd: Int32
        do {
            fd = try SystemCall.open(path, O_RDONLY | O_NOFOLLOW)
        } catch  where error.isNotFound {
            return nil
        }
        defer { close(fd) }
        return try readAll(fd, path: path)
    }
}
