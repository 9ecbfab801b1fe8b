import Foundation
import Synchronization

/// The ping-mode clients' notification endpoints as they stand (the configuration's, replaced at run time by a test
/// control) and the log of pings. Small shared state behind a lock; no ping holds it while sending.
final class BackchannelPingEndpoints: Sendable {
    private struct Contents {
        var uris: [String: URL]
        var deliveries: [AuthEmulator.BackchannelPingDelivery] = []
    }

    private let contents: Mutex<Contents>

    /// Starts with the endpoints of the configured ping-mode clients (invalid ones were refused by validation).
    init(clients: [AuthEmulator.Client]) {
        var uris: [String: URL] = [:]
        for client in clients where client.backchannelTokenDeliveryMode == .ping {
            if let text = client.backchannelClientNotificationEndpoint, let uri = URL(string: text) {
                uris[client.id] = uri
            }
        }
        self.contents = Mutex(Contents(uris: uris))
    }

    /// The notification endpoint of a client, or `nil` for a poll-mode client.
    func uri(forClient clientID: String) -> URL? {
        contents.withLock { $0.uris[clientID] }
    }

    /// Makes a client ping-mode with `uri`, or poll-mode (`nil`).
    func setURI(_ uri: URL?, forClient clientID: String) {
        contents.withLock { $0.uris[clientID] = uri }
    }

    /// Appends finished pings to the log, which keeps the newest 1000.
    func record(_ deliveries: [AuthEmulator.BackchannelPingDelivery]) {
        contents.withLock { contents in
            contents.deliveries.append(contentsOf: deliveries)
            if contents.deliveries.count > BackchannelRegistry.logLimit {
                contents.deliveries.removeFirst(contents.deliveries.count - BackchannelRegistry.logLimit)
            }
        }
    }

    /// The log, oldest first.
    var deliveries: [AuthEmulator.BackchannelPingDelivery] {
        contents.withLock { $0.deliveries }
    }
}
