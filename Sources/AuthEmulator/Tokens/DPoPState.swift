import Foundation

/// The emulator's DPoP state: whether proofs must carry a nonce, the nonce in force, and the `jti`s seen
/// recently (a proof is accepted once).
actor DPoPState {
    /// How far a proof's `iat` may be from the emulator's clock, either way.
    static let window: TimeInterval = 60

    private(set) var requiresNonce: Bool
    private(set) var nonce = SecureRandom.token(byteCount: 16)
    private var seen: [String: Date] = [:]

    init(requiresNonce: Bool) {
        self.requiresNonce = requiresNonce
    }

    /// The nonce to send with an answer, when nonces are required.
    var nonceToAnnounce: String? { requiresNonce ? nonce : nil }

    func setRequiresNonce(_ required: Bool) {
        requiresNonce = required
    }

    /// Replaces the nonce: proofs made with the old one are answered `use_dpop_nonce` with the new one.
    @discardableResult
    func rotateNonce() -> String {
        nonce = SecureRandom.token(byteCount: 16)
        return nonce
    }

    /// Records `jti` as used until the proof's window ends; `false` when it was used already.
    func use(jti: String, now: Date) -> Bool {
        seen = seen.filter { $0.value > now }
        guard seen[jti] == nil else { return false }
        seen[jti] = now.addingTimeInterval(2 * Self.window)
        return true
    }
}
