import Foundation
import Synchronization

/// Where the emulator calls its clients back, by client id, as it stands (the configuration's, replaced at run time
/// by a test control), and the log of those calls, newest 1000 kept. Small shared state behind a lock; no call holds
/// it while sending. One each for back-channel logout URIs, CIBA ping-mode notification endpoints and Shared Signals
/// receivers, each with its own record of a call.
final class ClientEndpoints<Delivery: Sendable>: Sendable {
    private struct Contents {
        var uris: [String: URL]
        var deliveries: [Delivery] = []
    }

    /// The log keeps this many calls, dropping the oldest.
    static var logLimit: Int { 1000 }

    private let contents: Mutex<Contents>

    /// Starts with `uris`, by client id.
    init(_ uris: [String: URL] = [:]) {
        contents = Mutex(Contents(uris: uris))
    }

    /// Starts with the URL that `uri` reads from each client that has one (invalid ones were refused by
    /// validation).
    convenience init(clients: [AuthEmulator.Client], uri: (AuthEmulator.Client) -> String?) {
        var uris: [String: URL] = [:]
        for client in clients {
            if let text = uri(client), let url = URL(string: text) { uris[client.id] = url }
        }
        self.init(uris)
    }

    /// The endpoint of a client, or `nil` when it has none.
    func uri(forClient clientID: String) -> URL? {
        contents.withLock { $0.uris[clientID] }
    }

    /// Sets or removes (`nil`) a client's endpoint.
    func setURI(_ uri: URL?, forClient clientID: String) {
        contents.withLock { $0.uris[clientID] = uri }
    }

    /// Appends finished calls to the log.
    func record(_ deliveries: [Delivery]) {
        contents.withLock { contents in
            contents.deliveries.append(contentsOf: deliveries)
            if contents.deliveries.count > Self.logLimit {
                contents.deliveries.removeFirst(contents.deliveries.count - Self.logLimit)
            }
        }
    }

    /// The log, oldest first.
    var deliveries: [Delivery] {
        contents.withLock { $0.deliveries }
    }

    /// Empties the log.
    func clearLog() {
        contents.withLock { $0.deliveries.removeAll() }
    }
}
