import Foundation
import Synchronization

/// The clients' Shared Signals receivers (their push endpoints, set by a test control) and the delivery log.
final class SecurityEventReceivers: Sendable {
    private struct Contents {
        var uris: [String: URL] = [:]
        var deliveries: [AuthEmulator.SecurityEventDelivery] = []
    }

    private let contents = Mutex(Contents())

    /// The push endpoint of a client, or `nil` when it has none.
    func uri(forClient clientID: String) -> URL? { contents.withLock { $0.uris[clientID] } }

    /// Sets or removes (`nil`) a client's push endpoint.
    func setURI(_ uri: URL?, forClient clientID: String) { contents.withLock { $0.uris[clientID] = uri } }

    /// Appends finished deliveries to the log, which keeps the newest 1000.
    func record(_ deliveries: [AuthEmulator.SecurityEventDelivery]) {
        contents.withLock { contents in
            contents.deliveries.append(contentsOf: deliveries)
            if contents.deliveries.count > BackchannelRegistry.logLimit {
                contents.deliveries.removeFirst(contents.deliveries.count - BackchannelRegistry.logLimit)
            }
        }
    }

    /// The log, oldest first.
    var deliveries: [AuthEmulator.SecurityEventDelivery] { contents.withLock { $0.deliveries } }
}
