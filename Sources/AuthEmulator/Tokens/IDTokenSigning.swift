import JWTKit

/// Signs what a client receives as an ID token would be signed: with the emulator's current key (its `kid`
/// omitted when the configuration says so), or HS256 with the client's secret for a client that
/// ``AuthEmulator/Client/signsIDTokensWithSecret``. Logout tokens are signed the same way (Back-Channel Logout
/// 1.0 §2.4: "signed ... with the same key and algorithm as ID tokens").
struct IDTokenSigning: Sendable {
    let core: EmulatorCore

    /// Signs `payload` for `client`, with `header`'s fields (such as `typ`) in the JOSE header.
    func sign(_ payload: some JWTPayload, for client: AuthEmulator.Client, header: JWTHeader = JWTHeader())
        async throws -> String
    {
        if client.signsIDTokensWithSecret, let secret = client.secret, secret.utf8.count >= 32 {
            let ring = JWTKeyCollection()
            await ring.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            return try await ring.sign(payload, header: header)
        }
        return try await core.keys.sign(payload, withKeyID: !core.configuration.omitsIDTokenKeyID, header: header)
    }

    /// Verifies a token that was signed by ``sign(_:for:header:)`` for any client: against the published keys,
    /// or, when that fails, with the secret of the client its unverified `aud` names if that client signs with
    /// its secret. Expiry is not checked.
    func verify<Payload: JWTPayload>(_ token: String, as type: Payload.Type, audience: String?) async throws
        -> Payload
    {
        do {
            return try await core.keys.verify(token, as: type, now: core.clock.now)
        } catch {
            guard let client = core.client(id: audience), client.signsIDTokensWithSecret,
                let secret = client.secret, secret.utf8.count >= 32
            else { throw error }
            let ring = JWTKeyCollection()
            await ring.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            return try await ring.verify(token, as: type)
        }
    }
}
