import Crypto
import SessionKitSupport
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Receives the pings of backchannel authentications in ping mode (OpenID CIBA Core 1.0 section 10.2) and wakes the
/// ``ProviderClient/pollBackchannelSignIn(_:onPending:)`` each one is for.
///
/// SessionKit runs no server: the app routes `POST` requests to its `backchannel_client_notification_endpoint` (the
/// one registered for the client at the provider) to ``receive(authorization:body:)`` and sends the status it
/// returns, with an empty body. One receiver serves any number of sign-ins; pass it to
/// ``ProviderClient/backchannelSignIn(loginHint:bindingMessage:scope:audience:pingReceiver:)``, which chooses each
/// request's `client_notification_token` and registers it here.
///
/// A ping only ends the current wait between polls early: the poll that follows learns the user's decision, so a
/// lost ping costs one `interval`, and a replayed or forged one at most an extra poll. The tokens are kept as
/// SHA-256 digests and compared in constant time; neither they nor any `auth_req_id` are logged or described.
public final class BackchannelPingReceiver: Sendable, CustomStringConvertible {
    /// One registered sign-in: the digests of its bearer token and `auth_req_id`, and the signal its poll waits on.
    private struct Entry {
        let tokenDigest: [UInt8]
        /// `nil` until the provider answered the request with its `auth_req_id`.
        var authReqIDDigest: [UInt8]?
        /// The `auth_req_id` of a ping that came before the provider's answer reached the client, checked then.
        var earlyPingDigest: [UInt8]?
        var expiresAt: Date
        let signal: ChangeSignal
    }

    /// The largest body read: a ping is `{"auth_req_id": ...}`, and an `auth_req_id` is at most 4096 bytes here.
    static let bodyLimit = 8192

    private let entries = Mutex<[Int: Entry]>([:])
    private let nextID = Atomic<Int>(0)

    /// Creates a receiver with no sign-in registered.
    public init() {}

    /// Answers one request to the notification endpoint: `204` for a ping of a registered sign-in (which wakes its
    /// poll), `401` when the bearer token is missing or names no sign-in waiting here (send
    /// `WWW-Authenticate: Bearer` with it), `400` when the token is right but the body is not
    /// `{"auth_req_id": ...}` naming that sign-in. Nothing is woken unless the answer is `204`.
    ///
    /// - Parameters:
    ///   - authorization: The request's `Authorization` header, `Bearer <client_notification_token>`.
    ///   - body: The request's body, JSON.
    /// - Returns: The HTTP status to answer with.
    public func receive(authorization: String?, body: some Collection<UInt8>) -> Int {
        guard let token = Self.bearerToken(in: authorization) else { return 401 }
        let tokenDigest = Array(SHA256.hash(data: Data(token.utf8)))
        let authReqID = body.count <= Self.bodyLimit ? Self.authReqID(in: Array(body)) : nil
        let idDigest = authReqID.map { Array(SHA256.hash(data: Data($0.utf8))) }
        let outcome = entries.withLock { entries -> (status: Int, signal: ChangeSignal?) in
            // Every entry is compared, whichever matches: the time taken says nothing about the token.
            var matched: Int?
            for (id, entry) in entries where ConstantTime.equals(entry.tokenDigest, tokenDigest) { matched = id }
            guard let matched, let entry = entries[matched] else { return (401, nil) }
            guard let idDigest else { return (400, nil) }
            guard let expected = entry.authReqIDDigest else {
                entries[matched]?.earlyPingDigest = idDigest
                return (204, nil)
            }
            guard ConstantTime.equals(expected, idDigest) else { return (400, nil) }
            return (204, entry.signal)
        }
        outcome.signal?.signal()
        return outcome.status
    }

    /// How many sign-ins are registered; never which.
    public var description: String {
        "BackchannelPingReceiver(\(entries.withLock { $0.count }) sign-ins waiting)"
    }

    // MARK: For ProviderClient

    /// Registers a sign-in about to be requested with `token` as its `client_notification_token`; entries expired at
    /// `now` are dropped.
    func register(token: String, now: Date) -> BackchannelPingRegistration {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let signal = ChangeSignal()
        let entry = Entry(
            tokenDigest: Array(SHA256.hash(data: Data(token.utf8))), authReqIDDigest: nil, earlyPingDigest: nil,
            expiresAt: now.addingTimeInterval(600), signal: signal)
        entries.withLock { entries in
            entries = entries.filter { $0.value.expiresAt > now }
            entries[id] = entry
        }
        return BackchannelPingRegistration(receiver: self, id: id, signal: signal)
    }

    /// Completes a registration with the provider's answer; a ping that came before it wakes the poll now if it named
    /// this `auth_req_id`.
    func activate(_ id: Int, authReqID: String, expiresAt: Date) {
        let digest = Array(SHA256.hash(data: Data(authReqID.utf8)))
        let signal = entries.withLock { entries -> ChangeSignal? in
            guard var entry = entries[id] else { return nil }
            entry.authReqIDDigest = digest
            entry.expiresAt = expiresAt
            let early = entry.earlyPingDigest.map { ConstantTime.equals($0, digest) } ?? false
            entry.earlyPingDigest = nil
            entries[id] = entry
            return early ? entry.signal : nil
        }
        signal?.signal()
    }

    /// Forgets a sign-in that ended (or was never started): its pings are refused from now on.
    func forget(_ id: Int) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    /// The token of an `Authorization: Bearer <token>` header (the scheme in any case), or `nil`.
    static func bearerToken(in header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer", parts[1].utf8.count <= 1024 else { return nil }
        return String(parts[1])
    }

    /// The `auth_req_id` of a ping's body, or `nil` when it is not a JSON object with a non-empty string one.
    static func authReqID(in body: [UInt8]) -> String? {
        guard let object = (try? JSONValue(parsing: Data(body)))?.objectValue,
            let id = object["auth_req_id"]?.stringValue, !id.isEmpty, id.utf8.count <= 4096
        else { return nil }
        return id
    }
}

/// A sign-in registered with a ``BackchannelPingReceiver``: what ``BackchannelAuthentication`` keeps to wait for its
/// pings and to be forgotten once it ends.
struct BackchannelPingRegistration: Sendable {
    let receiver: BackchannelPingReceiver
    let id: Int
    /// Signalled by each accepted ping.
    let signal: ChangeSignal

    /// Completes the registration with the provider's answer.
    func activate(authReqID: String, expiresAt: Date) {
        receiver.activate(id, authReqID: authReqID, expiresAt: expiresAt)
    }

    /// Forgets the sign-in: it ended, and its pings are refused from now on.
    func forget() { receiver.forget(id) }
}
