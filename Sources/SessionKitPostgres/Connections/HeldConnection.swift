import PostgresNIO
import Synchronization

/// The pooled connection a call holds, for the call's deadline to close.
///
/// A closed connection stays in its pool until the pool hears of the close, which over TLS waits for the server's
/// answer to the close (up to NIOSSL's five seconds, when the server is busy with the statement given up on); until
/// then the pool lends it again, and every query that gets it fails at once. The store's own pool lends it only to
/// the store's calls, which take another. The application's pool would lend it to the application's queries: there
/// the connection goes back only once it is closed.
final class HeldConnection: Sendable {
    private struct State {
        var connection: PostgresConnection?
        var closing = false
    }

    private let state = Mutex(State())
    /// The application's client, whose connections go back only once closed; `nil` for the store's own.
    private let sharedClient: PostgresClient?

    /// Holds connections of `sharedClient`, the application's, or of the store's own pool (`nil`).
    init(sharedClient: PostgresClient?) {
        self.sharedClient = sharedClient
    }

    /// Whether no connection is held now.
    var isEmpty: Bool { state.withLock { $0.connection == nil } }

    /// Runs `body` with `connection` held; with the application's client, returns only once the connection is
    /// closed if ``close()`` closed it meanwhile.
    func hold<T>(_ connection: PostgresConnection, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        state.withLock { $0 = State(connection: connection) }
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(connection))
        } catch {
            outcome = .failure(error)
        }
        let closing = state.withLock { state in
            state.connection = nil
            return state.closing
        }
        if closing, let sharedClient {
            try? await connection.closeFuture.get()
            // PostgresNIO 1.33's pool opens no connection for the requests already waiting when a leased one
            // closes (only for new ones): one more request makes it open one, which serves them in order.
            Task { try? await sharedClient.withConnection { _ in } }
        }
        return try outcome.get()
    }

    /// Closes the connection held, if any, which fails what it was waiting for.
    func close() {
        let connection = state.withLock { state -> PostgresConnection? in
            guard let connection = state.connection else { return nil }
            state.closing = true
            return connection
        }
        guard let connection else { return }
        Task { try? await connection.close() }
    }
}
