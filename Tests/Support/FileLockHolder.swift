package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Holds an encrypted file store's lock (the `*.store.lock` file in its folder), as another process writing at that
/// moment would.
package final class FileLockHolder {
    private let descriptor: Int32

    /// Takes the lock of the store in `folder`; throws when there is no store there or the lock cannot be taken.
    package init(folder: URL) throws {
        guard
            let name = try FileManager.default.contentsOfDirectory(atPath: folder.path).first(where: {
                $0.hasSuffix(".store.lock")
            })
        else { throw CocoaError(.fileNoSuchFile) }
        descriptor = open(folder.appendingPathComponent(name).path, O_RDWR)
        guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else {
            throw CocoaError(.fileLocking)
        }
    }

    /// Releases the lock.
    package func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
