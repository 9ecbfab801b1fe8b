import Crypto
public import Foundation

/// A DPoP proof's JOSE header (RFC 9449 section 4.2).
private struct DPoPProofHeader: Encodable {
    let typ = "dpop+jwt"
    let alg = "ES256"
    let jwk: [String: String]
}

/// The claims of a DPoP proof (RFC 9449 section 4.2).
private struct DPoPProofClaims: Encodable {
    /// A unique identifier: 128 random bits, never reused.
    var jti: String
    /// The request's method.
    var htm: String
    /// The request's URL without query and fragment.
    var htu: String
    /// When the proof was made, in seconds since 1970.
    var iat: Int
    /// The SHA-256 of the access token, base64url-encoded, when the request carries one.
    var ath: String?
    /// The server's nonce, when it asked for one.
    var nonce: String?
}

extension DPoPKey {
    /// A DPoP proof for one request: a JWT signed with this key, naming the method and the URL (without query and
    /// fragment), with a fresh `jti` every time, `ath` bound to `accessToken` when one is sent, and the server's
    /// `nonce` when it asked for one.
    ///
    /// The JWS is put together here and signed by swift-crypto (or the Secure Enclave, whose key jwt-kit cannot
    /// hold); the emulator checks every proof with jwt-kit.
    ///
    /// ``ProviderClient/proof(for:method:url:)`` adds the nonce a server gave last; use that for an API request.
    ///
    /// - Throws: ``SessionKitError/Code/invalidInput`` when `url` is not an absolute URL or the key cannot sign.
    public func proof(method: String, url: URL, accessToken: Secret? = nil, nonce: String? = nil, now: Date = Date())
        async throws(SessionKitError) -> String
    {
        guard var target = URLComponents(url: url, resolvingAgainstBaseURL: true), target.scheme != nil,
            target.host != nil
        else {
            throw SessionKitError(code: .invalidInput, message: "a DPoP proof needs an absolute URL, not '\(url)'")
        }
        target.query = nil
        target.fragment = nil
        let claims = DPoPProofClaims(
            jti: PKCE.randomToken(bytes: 16), htm: method.uppercased(), htu: target.string ?? url.absoluteString,
            iat: Int(now.timeIntervalSince1970),
            ath: accessToken.map { Base64URL.encode(Data(SHA256.hash(data: Data($0.unsafeRawValue.utf8)))) },
            nonce: nonce)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            let input =
                Base64URL.encode(try encoder.encode(DPoPProofHeader(jwk: jwk))) + "."
                + Base64URL.encode(try encoder.encode(claims))
            return input + "." + Base64URL.encode(try signer.signature(for: Data(input.utf8)))
        } catch {
            throw SessionKitError(
                code: .invalidInput, message: "the DPoP proof could not be signed", underlyingError: error)
        }
    }
}
