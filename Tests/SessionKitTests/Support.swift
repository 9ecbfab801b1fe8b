import AuthEmulator
import Foundation
import SecureStore
import SessionKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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
