package import SecureStore
import Synchronization

/// What a ``SessionManager`` holds of its session in memory, shared with its ``SessionCoordinator``: the record
/// last read, written or announced (which the coordinator keeps as its store requires), and the states that
/// reads and store failures imply.
///
/// A class around a `Mutex` so that the manager's fast path reads the record without an actor hop and its
/// coordinator updates it in place.
package final class HeldSession: Sendable {
    private let record = Mutex<SessionRecord?>(nil)
    /// A record another manager of this session read just now and handed over, until a renewal starts from it.
    private let handedOver = Mutex<SessionRecord?>(nil)
    private let states: StateBroadcaster

    /// Holds nothing yet; publishes to `states`.
    init(states: StateBroadcaster) {
        self.states = states
    }

    /// Runs `body` on the record held (`nil`: none), under the lock: quick, and waiting for nothing.
    package func withLock<Result: Sendable>(_ body: (inout SessionRecord?) -> Result) -> Result {
        record.withLock { body(&$0) }
    }

    /// Drops the record held, so that the next call reads the store.
    package func drop() {
        record.withLock { $0 = nil }
        handedOver.withLock { $0 = nil }
    }

    /// Holds `read`, which another manager of the same session in this process read from the store just now, and
    /// keeps it for ``takeHandedOver()``: where a coordinator that keeps no versions starts the next renewal
    /// instead of reading the store again (see `SessionManager.takeOver(_:)`).
    package func handOver(_ read: SessionRecord) {
        record.withLock { $0 = read }
        handedOver.withLock { $0 = read }
    }

    /// The record handed over with ``handOver(_:)``, once: `nil` after the first call, and after any read or
    /// write through the coordinator (``forgetHandedOver()``).
    package func takeHandedOver() -> SessionRecord? {
        handedOver.withLock { record in
            defer { record = nil }
            return record
        }
    }

    /// Forgets a record handed over: a read or write of the store supersedes it.
    package func forgetHandedOver() {
        handedOver.withLock { $0 = nil }
    }

    /// Publishes what a record just read from the store implies: signed out, when it holds no session.
    package func didRead(_ read: SessionRecord) {
        if read.credentials == nil { states.publish(.signedOut) }
    }

    /// Maps a store error with ``SessionKitError/init(storeError:)`` and publishes the state it implies.
    package func storeFailure(_ error: SecureStoreError) -> SessionKitError {
        let failure = SessionKitError(storeError: error)
        if failure.code == .storeUnavailable { states.publish(.storeUnavailable(reason: error.message)) }
        return failure
    }
}
