import NIOCore
import NIOPosix
import PostgresNIO
public import SecureStore
import Synchronization

extension PostgresSessionStore {
    /// Changes to this service's items made by any instance, this one included, as PostgreSQL announces
    /// them with `NOTIFY sessionkit_items`: for evicting cached sessions everywhere within a second of a
    /// logout or a renewal elsewhere. This store's own item writes are marked
    /// (``SecureStore/SecureStoreChange/isOwnWrite``); its ``deleteAll()`` and sweeps are not, since they
    /// concern items cached by anyone. A written item comes with its value
    /// (``SecureStore/SecureStoreChange/item``) when its sealed form fits in a notification: a cache takes it
    /// without reading the row.
    ///
    /// Listening has started when this returns: every write committed afterwards is in the stream. The
    /// stream has its own connection, outside the pool, closed when the stream is dropped or its consumer
    /// is cancelled. When that connection is lost (PostgreSQL restarting), the stream ends with
    /// ``SecureStore/SecureStoreError/Code/unavailable``: changes may have been missed, so treat every cached
    /// item as changed and call `changes()` again.
    ///
    /// - Throws: ``SecureStore/SecureStoreError/Code/unavailable`` when the database cannot be reached.
    public func changes() async throws(SecureStoreError) -> AsyncThrowingStream<SecureStoreChange, any Error> {
        let configuration = connectionConfiguration
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: SecureStoreChange.self)
        let (service, writerID, logger, description) = (service, writerID, logger, "\(self.configuration)")
        let (sealer, commitWatch) = (sealer, commitWatch)
        let started = ListenStart()
        let task = Task {
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 0,
                    logger: logger)
            } catch {
                started.finish(PostgresErrors.map(error, while: "connecting to \(description) to listen for changes"))
                continuation.finish()
                return
            }
            var listening = false
            defer { if listening { commitWatch.listenerEnded() } }
            do {
                try await connection.listen(on: Self.notificationChannel) { notifications in
                    listening = true
                    commitWatch.listenerStarted()
                    started.finish(nil)
                    for try await notification in notifications {
                        let announced = Announcement.change(
                            notification.payload, service: service, writerID: writerID, sealer: sealer)
                        if let (change, ownGeneration) = announced {
                            if let ownGeneration, let digest = change.keyDigest {
                                commitWatch.announced(digest: digest, generation: ownGeneration)
                            }
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
                            message: "the connection that listens for changes of service '\(service)' ended; treat "
                                + "every cached item as changed and call changes() again"
                        ))
                }
            } catch {
                let failure = PostgresErrors.map(error, while: "listening for changes of service '\(service)'")
                if listening { continuation.finish(throwing: failure) } else { started.finish(failure) }
                continuation.finish()
            }
            try? await connection.close()
        }
        continuation.onTermination = { _ in task.cancel() }
        // Bounded like any call: a server that accepts the connection and never answers does not hold this up.
        if let failure = await started.wait(upTo: self.configuration.callTimeout) {
            task.cancel()
            throw failure
        }
        return stream
    }
}
