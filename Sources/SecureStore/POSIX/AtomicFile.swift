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

/// Durable, atomic replacement of a file: a crash at any instant leaves either the old content or the new.
///
/// The steps: create a temporary file next to the target (`O_CREAT | O_EXCL`, mode 0600 set with `fchmod`
/// whatever the umask), write everything, `fsync` it, `rename` it over the target, then `fsync` the
/// folder so that the rename itself survives a power cut.
///
/// Temporary files are named `<target>.tmp-<random>`. One left behind by a writer that was killed is
/// removed by ``removeStaleTemporaries(of:)``, which callers run while holding the store lock (when no
/// other writer can be mid-write).
enum AtomicFile {
    /// The marker between a target's name and the random part of its temporary files' names.
    static let temporaryMarker = ".tmp-"

    /// Replaces the file at `path` with `data`, atomically and durably.
    static func write(_ data: Data, to path: String) throws(SystemCallError) {
        let temporary = path + temporaryMarker + randomSuffix()
        let fd = try SystemCall.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
        do {
            try SystemCall.setMode(fd, 0o600, path: temporary)
            try FileIO.writeAll(data, to: fd, path: temporary)
            try SystemCall.sync(fd, path: temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        do {
            _ = try SystemCall.retrying("rename", path) { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        try SystemCall.syncFolder(folder(of: path))
    }

    /// Removes the file at `path` durably; a missing file is not an error.
    static func remove(_ path: String) throws(SystemCallError) {
        try SystemCall.removeIfPresent(path)
        try SystemCall.syncFolder(folder(of: path))
    }

    /// Removes the temporary files of `folder/fileName` left by writers that died mid-write.
    ///
    /// Best effort: a folder that cannot be listed is left as it is. Call it only while holding the lock
    /// that every writer of the file takes, or it may remove a live writer's temporary file.
    ///
    /// - Parameter age: Only files not modified for this many seconds are removed, for callers that hold no
    ///   lock: a younger one may belong to a writer still at work.
    static func removeStaleTemporaries(of fileName: String, in folder: String, olderThan age: TimeInterval = 0) {
        let prefix = fileName + temporaryMarker
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let now = Date()
        for name in names where name.hasPrefix(prefix) {
            let path = folder + "/" + name
            if age > 0 {
                guard
                    let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate]
                        as? Date,
                    now.timeIntervalSince(modified) >= age
                else { continue }
            }
            unlink(path)
        }
    }

    /// The folder part of `path` (everything before the last `/`), or `.` when there is none.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// 16 random hexadecimal digits.
    private static func randomSuffix() -> String {
        let value = UInt64.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
