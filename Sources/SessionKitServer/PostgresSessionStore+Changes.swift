import NIOCore
import NIOPosix
import PostgresNIO
public import SecureStore

extension PostgresSessionStore {
    /// A change to this service's items, announced by whichever instance made it.
    public struct Change: Sendable, Hashable, CustomStringConvertible {
        /// The hex SHA-256 of the changed item's key, or `nil` when every item of the service changed
        /// (``PostgresSessionStore/deleteAll()``). The key itself is never sent.
        public let keyDigest: String?

        /// Whether this change concerns the item under `key`: drop any cached copy of it.
        public func affects(key: String) -> Bool {
            keyDigest == nil || keyDigest == PostgresSessionStore.hex(PostgresSessionStore.digestData(key))
        }

        /// The digest's first characters, or "all items".
        public var description: String {
            keyDigest.map { "Change(item \($0.prefix(16))…)" } ?? "Change(all items)"
        }

        /// Parses a NOTIFY payload of `service`, or returns `nil` when it is another service's.
        init?(payload: String, service: String) {
            let prefix = service + ":"
            guard payload.hasPrefix(prefix) else { return nil }
            let rest = payload.dropFirst(prefix.count)
            if rest == "*" {
                keyDigest = nil
            } else if rest.count == 64, rest.allSatisfy(\.isHexDigit) {
                keyDigest = String(rest)
            } else {
                return nil  // A service whose name has this one as a prefix, such as "app:x" for "app".
            }
        }
    }

    /// Changes to this service's items made by any instance, this one included, as PostgreSQL announces
    /// them with `NOTIFY sessionkit_items`: for evicting cached sessions everywhere within a second of a
    /// logout or a renewal elsewhere.
    ///
    /// Listening has started when this returns: every write committed afterwards is in the stream. The
    /// stream has its own connection, outside the pool, closed when the stream is dropped or its consumer
    /// is cancelled. When that connection is lost (PostgreSQL restarting), the stream ends with
    /// ``SecureStoreError/Code/unavailable``: changes may have been missed, so treat every cached item as
    /// changed and call `changes()` again.
    ///
    /// - Throws: ``SecureStoreError/Code/unavailable`` when the database cannot be reached.
    public func changes() async throws(SecureStoreError) -> AsyncThrowingStream<Change, any Error> {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(),
                configuration: try pool.connectionConfiguration(),
                id: 0,
                logger: logger
            )
        } catch {
            throw PostgresErrors.map(error, while: "connecting to \(configuration) to listen for changes")
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Change.self)
        let service = service
        do {
            try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
                let task = Task {
                    var listening = false
                    do {
                        try await connection.listen(on: Self.notificationChannel) { notifications in
                            listening = true
                            started.resume()
                            for try await notification in notifications {
                                if let change = Change(payload: notification.payload, service: service) {
                                    continuation.yield(change)
                                }
                            }
                        }
                        if Task.isCancelled {
                            continuation.finish()
                        } else {
                            continuation.finish(
                                throwing: SecureStoreError(
                                    code: .unavailable,
                                    message: "the connection that listens for changes of service '\(service)' "
                                        + "ended; treat every cached item as changed and call changes() again"
                                )
                            )
                        }
                    } catch {
                        if listening {
                            continuation.finish(throwing: PostgresErrors.map(error, while: "listening for changes"))
                        } else {
                            started.resume(throwing: error)
                        }
                    }
                    try? await connection.close()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        } catch {
            throw PostgresErrors.map(error, while: "listening for changes of service '\(service)'")
        }
        return stream
    }
}
