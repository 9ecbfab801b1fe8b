import Foundation
import Synchronization

/// Pushed authorization requests (RFC 9126) awaiting the browser, and which clients must push. Small shared state
/// behind a lock, kept in memory only: a `request_uri` lives a minute, not across restarts.
final class PushedRequests: Sendable {
    /// A pushed request: the parameters `/authorize` reads in its place, whose they are, and until when.
    struct Record: Sendable {
        var clientID: String
        var parameters: RequestParameters
        var expiresAt: Date
        /// The thumbprint of the DPoP key the push was made with, which the code is bound to.
        var dpopJKT: String?
        var used = false
    }

    /// Why a `request_uri` cannot be used, and whether the request it named is known (to redirect the error to).
    enum Refusal: Error {
        case unknown
        case otherClient
        case expired(Record)
        case used(Record)
    }

    /// The prefix of every `request_uri` (RFC 9126 section 2.2).
    static let prefix = "urn:ietf:params:oauth:request_uri:"

    private struct Contents {
        var records: [String: Record] = [:]
        var requiredFor: Set<String>
    }

    private let contents: Mutex<Contents>

    /// Starts with the configured clients' "PAR required" switches.
    init(clients: [AuthEmulator.Client]) {
        contents = Mutex(Contents(requiredFor: Set(clients.filter(\.requiresPushedAuthorizationRequests).map(\.id))))
    }

    /// Whether `/authorize` takes `clientID`'s sign-ins only by `request_uri`.
    func isRequired(forClient clientID: String) -> Bool { contents.withLock { $0.requiredFor.contains(clientID) } }

    /// Whether any client must push, which discovery publishes as `require_pushed_authorization_requests`.
    var isRequiredByAny: Bool { contents.withLock { !$0.requiredFor.isEmpty } }

    /// Turns the requirement on or off for a client.
    func setRequired(_ required: Bool, forClient clientID: String) {
        contents.withLock { contents in
            if required {
                contents.requiredFor.insert(clientID)
            } else {
                contents.requiredFor.remove(clientID)
            }
        }
    }

    /// Stores a request and returns its new `request_uri`; records expired for ten minutes are dropped.
    func push(_ record: Record, now: Date) -> String {
        let uri = Self.prefix + SecureRandom.token()
        contents.withLock { contents in
            contents.records = contents.records.filter { $0.value.expiresAt.addingTimeInterval(600) > now }
            contents.records[uri] = record
        }
        return uri
    }

    /// The request `uri` names for `clientID`, unused and unexpired; it stays usable until ``consume(_:)``.
    func resolve(_ uri: String, clientID: String, now: Date) throws(Refusal) -> Record {
        guard let record = contents.withLock({ $0.records[uri] }) else { throw .unknown }
        guard record.clientID == clientID else { throw .otherClient }
        guard !record.used else { throw .used(record) }
        guard record.expiresAt > now else { throw .expired(record) }
        return record
    }

    /// Marks `uri` used; `false` when it was used already (two sign-ins racing on one `request_uri`).
    func consume(_ uri: String) -> Bool {
        contents.withLock { contents in
            guard let record = contents.records[uri], !record.used else { return false }
            contents.records[uri]?.used = true
            return true
        }
    }
}
