public import Foundation

extension AuthEmulator {
    /// Changes to a logout token sent by ``Controls/sendLogoutToken(toClient:subject:sid:altering:)``, to play a
    /// provider that gets Back-Channel Logout wrong, so a receiver's checks (OIDC Back-Channel Logout 1.0 §2.6)
    /// can be tested one by one.
    ///
    /// ```swift
    /// // A token for another client, and one with a nonce, which logout tokens must not carry.
    /// try await controls.sendLogoutToken(toClient: id, subject: alice, sid: nil, altering: .init(audience: "other"))
    /// try await controls.sendLogoutToken(toClient: id, subject: alice, sid: nil, altering: .init(nonce: "n"))
    /// ```
    public struct LogoutTokenAlteration: Sendable, Equatable {
        /// The `iss` to send instead of the emulator's issuer.
        public var issuer: String?
        /// The `aud` to send instead of the client's id.
        public var audience: String?
        /// The `iat` to send instead of now (a date in the past makes an expired token).
        public var issuedAt: Date?
        /// Seconds from `iat` to `exp` instead of 120.
        public var lifetime: Double?
        /// Leaves out the `events` claim, which a logout token must have.
        public var omitsEvents: Bool
        /// A `nonce` claim, which a logout token must not have.
        public var nonce: String?
        /// The header `typ` instead of `logout+jwt` (for instance plain `JWT`).
        public var type: String?
        /// A fixed `jti` instead of a random one, to send the same identifier twice with fresh signatures.
        public var jti: String?
        /// Signs with a key that is published nowhere, under the current key's `kid`: the signature fails.
        public var signsWithUnpublishedKey: Bool

        /// Creates an alteration; every argument defaults to "as a correct provider sends it".
        public init(
            issuer: String? = nil,
            audience: String? = nil,
            issuedAt: Date? = nil,
            lifetime: Double? = nil,
            omitsEvents: Bool = false,
            nonce: String? = nil,
            type: String? = nil,
            jti: String? = nil,
            signsWithUnpublishedKey: Bool = false
        ) {
            self.issuer = issuer
            self.audience = audience
            self.issuedAt = issuedAt
            self.lifetime = lifetime
            self.omitsEvents = omitsEvents
            self.nonce = nonce
            self.type = type
            self.jti = jti
            self.signsWithUnpublishedKey = signsWithUnpublishedKey
        }

        /// No change: the token a correct provider sends.
        public static let none = LogoutTokenAlteration()
    }
}
