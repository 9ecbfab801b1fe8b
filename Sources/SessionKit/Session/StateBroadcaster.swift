import Synchronization

/// The current ``SessionState`` and its subscribers; each new subscriber first gets the current state.
final class StateBroadcaster: Sendable {
    private struct Subscribers {
        var current: SessionState?
        var continuations: [Int: AsyncStream<SessionState>.Continuation] = [:]
        var nextID = 0
    }

    private let subscribers = Mutex(Subscribers())

    /// Publishes `state` to every subscriber, unless it equals the current state.
    func publish(_ state: SessionState) {
        let targets: [AsyncStream<SessionState>.Continuation] = subscribers.withLock { value in
            guard value.current != state else { return [] }
            value.current = state
            return Array(value.continuations.values)
        }
        for continuation in targets { continuation.yield(state) }
    }

    /// A stream of states that starts with the current one, if any is known.
    func stream() -> AsyncStream<SessionState> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SessionState.self, bufferingPolicy: .bufferingNewest(32))
        let id = subscribers.withLock { value in
            defer { value.nextID += 1 }
            value.continuations[value.nextID] = continuation
            if let current = value.current { continuation.yield(current) }
            return value.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    deinit {
        subscribers.withLock { value in
            for continuation in value.continuations.values { continuation.finish() }
        }
    }
}
