import Foundation
import Synchronization

/// The clients' back-channel logout URIs as they stand (the configuration's, replaced at run time by a test
/// control) and the log of deliveries. Small shared state behind a lock; no delivery holds it while sending.
final class BackchannelRegistry: Sendable {
    /// The log keeps this many deliveries, dropping the oldest.
    static let logLimit = 1000

    private struct Contents {
        var uris: [String: URL]
        var deliveries: [AuthEmulator.BackchannelDelivery] = []
    }

    private let contents: Mutex<Contents>

    /// Starts with the URIs of the configured clients (invalid ones were refused by validation).
    init(clients: [AuthEmulator.Client]) {
        var uris: [String: URL] = [:]
        for client in clients {
            if let text = client.backchannelLogoutURI, let uri = URL(string: text) { uris[client.id] = uri }
        }
        self.contents = Mutex(Contents(uris: uris))
    }

    /// The back-channel logout URI of a client, or `nil` when it has none.
    func uri(forClient clientID: String) -> URL? {
        contents.withLock { $0.uris[clientID] }
    }

    /// Sets or removes (`nil`) a client's back-channel logout URI.
    func setURI(_ uri: URL?, forClient clientID: String) {
        contents.withLock { $0.uris[clientID] = uri }
    }

    /// Appends finished deliveries to the log.
    func record(_ deliveries: [AuthEmulator.BackchannelDelivery]) {
        contents.withLock { contents in
            contents.deliveries.append(contentsOf: deliveries)
            if contents.deliveries.count > Self.logLimit {
                contents.deliveries.removeFirst(contents.deliveries.count - Self.logLimit)
            }
        }
    }

    /// The log, oldest first.
    var deliveries: [AuthEmulator.BackchannelDelivery] {
        contents.withLock { $0.deliveries }
    }

    /// Empties the log.
    func clearLog() {
        contents.withLock { $0.deliveries.removeAll() }
    }
}
