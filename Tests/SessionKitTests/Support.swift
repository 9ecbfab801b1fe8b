import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Holds the store's file lock, as another process writing at that moment would.
final class FileLockHolder {
    private let descriptor: Int32

    init(folder: URL) throws {
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".store.lock") }
        )
        descriptor = open(folder.appendingPathComponent(name).path, O_RDWR)
        guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else {
            throw CocoaError(.fileLocking)
        }
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// Waits until `condition` holds, checking every 50 ms, for at most `timeout`; an event to wait for,
/// instead of a guess at how long it takes on a loaded machine.
func waitUntil(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("the awaited condition did not hold within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}
