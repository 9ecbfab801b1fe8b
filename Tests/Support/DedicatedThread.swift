import Foundation

/// Runs blocking or long CPU-bound work (`waitpid`, a child's output read to its end, encoding every QR
/// version) on a thread of its own and returns its result.
///
/// Swift's cooperative pool has one thread per core, two in CI. A test that blocks them, or keeps them busy
/// for seconds, stalls every other test in the process (a CI run saw no test finish for its first 24 s while
/// both threads made RSA keys, and a child-process test timed that wait as its child's).
/// Expectations belong in the caller, where Swift Testing attributes them to the test.
package func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
