import Hummingbird

extension DPoPVerifier {
    /// The thumbprint of the key of `request`'s DPoP proof, checked for a `POST` to the authorization server's `url`
    /// (the token and pushed authorization request endpoints); `nil` without a proof. A refusal is the OAuth error
    /// those endpoints answer: `invalid_dpop_proof`, or `use_dpop_nonce` with the nonce to use.
    func authorizationServerKey(of request: Request, url: String) async throws(OAuthError) -> String? {
        do throws(Refusal) {
            guard let proof = try Self.proof(in: request) else { return nil }
            return try await verify(proof, method: "POST", url: url, accessToken: nil)
        } catch .invalid(let reason) {
            throw OAuthError(.invalidDPoPProof, reason)
        } catch {
            guard case .useNonce(let nonce) = error else { throw OAuthError(.invalidDPoPProof, "Invalid DPoP proof.") }
            var refusal = OAuthError(.useDPoPNonce, "Authorization server requires nonce in DPoP proof.")
            refusal.dpopNonce = nonce
            throw refusal
        }
    }
}
