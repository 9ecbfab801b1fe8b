import Synchronization

/// Holds the responder, which can only be built once the bound port (and so the issuer) is known.
/// The server calls `onServerRunning` before it accepts the first connection, so requests always find it set.
final class ResponderSlot: Sendable {
    private let value = Mutex<FaultingResponder?>(nil)

    var responder: FaultingResponder? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
