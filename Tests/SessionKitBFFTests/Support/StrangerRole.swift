import Foundation
import Logging
import NIOPosix
import PostgresNIO
import SessionKitTestSupport
import Synchronization

/// A PostgreSQL role that may only log in: no right on any table, as any role of the cluster has by default
/// (`PUBLIC` may connect to a new database). It hears the store's announcements and sends its own, as an attacker
/// who got hold of any login to the database would.
final class StrangerRole: Sendable {
    /// What the role has heard on the channel, in order.
    final class Heard: Sendable {
        let payloads = Mutex<[String]>([])
        let started = Mutex(false)
    }

    let name: String
    private let listener: PostgresConnection
    private let sender: PostgresConnection
    private let heard: Heard
    private let listening: Task<Void, any Error>

    private init(
        name: String, listener: PostgresConnection, sender: PostgresConnection, heard: Heard,
        listening: Task<Void, any Error>
    ) {
        self.name = name
        self.listener = listener
        self.sender = sender
        self.heard = heard
        self.listening = listening
    }

    /// Creates a login-only role (the tests' role may create roles) and starts listening with it.
    static func start() async throws -> StrangerRole {
        guard let url = BFFPostgres.url, let parts = URLComponents(string: url), let user = parts.user,
            let password = parts.password
        else { throw BFFPostgres.Missing() }
        let name = "stranger_" + UUID().uuidString.prefix(8).lowercased()
        let secret = UUID().uuidString
        let admin = try await connect(parts, user: user, password: password)
        _ = try await admin.query(
            "CREATE ROLE \(unescaped: name) LOGIN PASSWORD '\(unescaped: secret)'", logger: logger)
        try await admin.close()
        let listener = try await connect(parts, user: name, password: secret)
        let sender = try await connect(parts, user: name, password: secret)
        let heard = Heard()
        let listening = Task {
            try await listener.listen(on: "sessionkit_items") { notifications in
                heard.started.withLock { $0 = true }
                for try await notification in notifications {
                    heard.payloads.withLock { $0.append(notification.payload) }
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !heard.started.withLock({ $0 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return StrangerRole(name: name, listener: listener, sender: sender, heard: heard, listening: listening)
    }

    /// Every payload heard so far.
    var payloads: [String] { heard.payloads.withLock { $0 } }

    /// Sends `payload` on the store's channel.
    func notify(_ payload: String) async throws {
        _ = try await sender.query("SELECT pg_notify('sessionkit_items', \(payload))", logger: Self.logger)
    }

    /// Stops listening and closes the role's connections.
    func stop() async {
        listening.cancel()
        try? await listener.close()
        try? await sender.close()
    }

    private static let logger = Logger(label: "stranger", factory: { _ in SwiftLogNoOpLogHandler() })

    private static func connect(_ parts: URLComponents, user: String, password: String) async throws
        -> PostgresConnection
    {
        let configuration = PostgresConnection.Configuration(
            host: parts.host ?? "127.0.0.1", port: parts.port ?? 5432, username: user, password: password,
            database: String(parts.path.dropFirst()), tls: .disable)
        return try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger)
    }
}
