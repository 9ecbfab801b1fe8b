import Crypto
public import Foundation
import JWTKit

/// The claims of a DPoP proof (RFC 9449 section 4.2).
struct DPoPProofClaims: JWTPayload {
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

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension DPoPKey {
    /// A DPoP proof for one request: a JWT signed with this key, naming the method and the URL (without query and
    /// fragment), with a fresh `jti` every time, `ath` bound to `accessToken` when one is sent, and the server's
    /// `nonce` when it asked for one.
    ///
    /// ``ProviderClient/proof(for:method:url:)`` adds the nonce a server gave last; use that for an API request.
    ///
    /// - Throws: ``SessionKitError/Code/invalidInput`` when `url` is not an absolute URL.
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
        let header: JWTHeader = [
            "typ": "dpop+jwt", "alg": "ES256", "jwk": .object(jwk.mapValues { .string($0) }),
        ]
        do {
            let keys = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(backing: privateKey))
            return try await keys.sign(claims, header: header)
        } catch {
            throw SessionKitError(
                code: .invalidInput, message: "the DPoP proof could not be signed", underlyingError: error)
        }
    }
}
