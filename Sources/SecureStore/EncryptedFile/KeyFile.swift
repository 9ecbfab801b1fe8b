import Crypto

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

/// A 256-bit key kept as 32 raw bytes in a file of mode 0600.
enum KeyFile {
    static let byteCount = 32

    /// Reads the key at `path`, creating the file with a random key when it does not exist.
    static func loadOrCreate(_ path: String) throws(SecureStoreError) -> SymmetricKey {
        if let key = try load(path) { return key }
        // A creator killed between its temporary file and the link left that file behind (it holds a key
        // nobody uses); one untouched for a minute is not a creator still at work.
        AtomicFile.removeStaleTemporaries(
            of: URL(fileURLWithPath: path).lastPathComponent, in: AtomicFile.folder(of: path), olderThan: 60)
        do {
            try create(path)
        } catch {
            throw SecureStoreError(error, while: "creating the key file")
        }
        guard let key = try load(path) else {
            throw SecureStoreError(
                code: .unavailable,
                message: "the key file '\(path)' vanished right after it was created; try again"
            )
        }
        return key
    }

    /// Reads the key at `path`, or returns `nil` when there is no file.
    private static func load(_ path: String) throws(SecureStoreError) -> SymmetricKey? {
        let fd: Int32
        do {
            fd = try SystemCall.open(path, O_RDONLY | O_NOFOLLOW)
        } catch  where error.isNotFound {
            return nil
        } catch {
            throw SecureStoreError(error, while: "opening the key file")
        }
        defer { close(fd) }
        let info: stat
        let bytes: Data
        do {
            info = try SystemCall.status(fd, path: path)
            bytes = try FileIO.readAll(fd, path: path)
        } catch {
            throw SecureStoreError(error, while: "reading the key file")
        }
        try StoreFolder.requireOwnership(info, of: path, what: "key file")
        if info.st_mode & 0o077 != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw SecureStoreError(
                code: .permissionDenied,
                message: "the key file '\(path)' has mode \(mode), so other users may have read it; if you "
                    + "are sure they have not, run 'chmod 600 \(path)', else delete it and the store files"
            )
        }
        guard bytes.count == byteCount else {
            throw SecureStoreError(
                code: .corrupted,
                message: "the key file '\(path)' has \(bytes.count) bytes, not \(byteCount); restore it from a "
                    + "backup, or delete it and the store files it encrypts to start over"
            )
        }
        return SymmetricKey(data: bytes)
    }

    /// Writes a random key to a temporary file and links it into place, so that a reader never sees a
    /// partly written key and a racing creator's key wins cleanly (`link` fails if `path` exists).
    private static func create(_ path: String) throws(SystemCallError) {
        let temporary = path + AtomicFile.temporaryMarker + String(UInt64.random(in: .min ... .max), radix: 16)
        let fd = try SystemCall.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
        defer { unlink(temporary) }
        do {
            try SystemCall.setMode(fd, 0o600, path: temporary)
            let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            try FileIO.writeAll(key, to: fd, path: temporary)
            try SystemCall.sync(fd, path: temporary)
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        if link(temporary, path) != 0 {
            let code = SystemCall.currentErrno()
            if code == EEXIST { return }
            throw SystemCallError(call: "link", path: path, errno: code)
        }
        try SystemCall.syncFolder(AtomicFile.folder(of: path))
    }
}
