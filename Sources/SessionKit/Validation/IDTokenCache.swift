import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// ID tokens whose signature has already been verified, with the expectations they passed, so that
/// validating the same token again costs a lookup instead of a signature verification.
///
/// What a hit may skip, and what it may not:
/// - Skipped: parsing and the signature check. The entry is keyed by the exact token bytes, so the bytes
///   that verified are the bytes presented; and every entry is dropped when the provider's JWKS is
///   reloaded, so a key the provider withdrew stops vouching for its tokens at the next reload.
/// - Never skipped: the claim checks (expiry, issued-at, not-before and auth_time against the current
///   clock, and issuer, audience, nonce and subject against the expectations), which run again on every hit.
///   The expectations are part of the key too, so a token validated for one nonce or client is not a hit
///   for another.
///
/// Bounded: past ``capacity`` entries the oldest is evicted.
final class IDTokenCache: Sendable {
    /// A token and everything it was checked against except "now".
    struct Key: Hashable, Sendable {
        let token: Secret
        let issuer: String
        let clientID: String
        let nonce: String?
        let maxAge: TimeInterval?
        let subject: String?
        let leeway: TimeInterval

        init(_ token: Secret, _ expected: IDTokenValidator.Expectations) {
            self.token = token
            issuer = expected.issuer
            clientID = expected.clientID
            nonce = expected.nonce
            maxAge = expected.maxAge
            subject = expected.subject
            leeway = expected.leeway
        }

        /// Hashes the token's last bytes (its signature, which differs between any two tokens) rather than
        /// all of it; equality still compares every byte.
        func hash(into hasher: inout Hasher) {
            let raw = token.unsafeRawValue.utf8
            for byte in raw.suffix(32) { hasher.combine(byte) }
            hasher.combine(raw.count)
            hasher.combine(nonce)
            hasher.combine(subject)
        }
    }

    private struct State {
        var entries: [Key: JWT] = [:]
        var order: [Key] = []
    }

    /// The most entries kept.
    let capacity: Int
    private let state = Mutex(State())

    /// An empty cache of at most `capacity` tokens.
    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    /// The claims of a token verified earlier with these expectations, or `nil`.
    func claims(for key: Key) -> JWT? {
        state.withLock { $0.entries[key] }
    }

    /// Remembers a token whose signature and claims were just verified.
    func insert(_ jwt: JWT, for key: Key) {
        guard capacity > 0 else { return }
        state.withLock { state in
            guard state.entries.updateValue(jwt, forKey: key) == nil else { return }
            state.order.append(key)
            if state.order.count > capacity {
                state.entries[state.order.removeFirst()] = nil
            }
        }
    }

    /// Forgets one token (it failed a claim check on a hit).
    func remove(_ key: Key) {
        state.withLock { state in
            guard state.entries.removeValue(forKey: key) != nil else { return }
            state.order.removeAll { $0 == key }
        }
    }

    /// Forgets every token: the keys that verified them may have changed.
    func removeAll() {
        state.withLock { $0 = State() }
    }

    /// The number of tokens held.
    var count: Int { state.withLock { $0.entries.count } }
}
