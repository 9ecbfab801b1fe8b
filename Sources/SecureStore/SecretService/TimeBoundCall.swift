import Dispatch
import SessionKitSupport
import Synchronization

/// Runs a blocking libsecret call on a thread of its own and stops waiting for it after a timeout.
///
/// A keyring that does not answer (a hung daemon, a prompt nobody sees) must never hang the caller. The
/// call gets a `GCancellable` that is cancelled on timeout; libsecret then ends the call as soon as it
/// can. The abandoned thread cleans up after itself and its result is dropped.
enum TimeBoundCall {
    /// A `GCancellable` shared between the waiting thread and the worker thread.
    struct Cancellable: @unchecked Sendable {  // GCancellable is thread-safe (GIO documentation); each side holds a ref
        let pointer: UnsafeMutableRawPointer
    }

    /// The worker's result and the signal that it is there.
    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<Result<T, SecretServiceFailure>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `work` with a fresh cancellable and returns its result, or `.timedOut` after `timeout`.
    static func run<T: Sendable>(
        _ library: LibSecret,
        timeout: Duration,
        _ work: @escaping @Sendable (LibSecret, Cancellable) -> Result<T, SecretServiceFailure>
    ) -> Result<T, SecretServiceFailure> {
        let cancellable = Cancellable(pointer: library.cancellableNew())
        _ = library.objectRef(cancellable.pointer)  // the worker's reference
        let outcome = Outcome<T>()
        let started = DetachedThread.start {
            let result = work(library, cancellable)
            library.objectUnref(cancellable.pointer)
            outcome.value.withLock { $0 = result }
            outcome.done.signal()
        }
        guard started else {
            library.objectUnref(cancellable.pointer)  // the worker's reference: no worker took it
            library.objectUnref(cancellable.pointer)
            return .failure(
                SecretServiceFailure(kind: .other, message: "no thread could be started for the call (out of threads)")
            )
        }
        defer { library.objectUnref(cancellable.pointer) }
        if outcome.done.wait(timeout: .now() + .nanoseconds(Int(clamping: timeout.clampedNanoseconds))) == .success,
            let result = outcome.value.withLock({ $0 })
        {
            return result
        }
        library.cancellableCancel(cancellable.pointer)
        return .failure(
            SecretServiceFailure(kind: .timedOut, message: "the Secret Service did not answer within \(timeout)")
        )
    }
}
