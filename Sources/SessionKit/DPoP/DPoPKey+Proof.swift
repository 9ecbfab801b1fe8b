import Crypto
import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension DPoPKey {
    /// A DPoP proof for one request: a JWT signed with this key, naming the method and the URL (without query and
    /// fragment), with a fresh `jti` every time, `ath` bound to `accessToken` when one is sent, and the server's
    /// `nonce` when it asked for one.
    ///
    /// The JWS is put together here (the header once per key, the claims by `JSONTextWriter`) and signed by
    /// swift-crypto (or the Secure Enclave, whose key jwt-kit cannot hold); the emulator checks every proof with jwt-kit.
    ///
    /// ``ProviderClient/proof(for:method:url:)`` adds the nonce a server gave last; use that for an API request.
    ///
    /// - Throws: ``SessionKitError/Code/invalidInput`` when `url` is not an absolute URL or the key cannot sign.
    public func proof(method: String, url: URL, accessToken: Secret? = nil, nonce: String? = nil, now: Date = Date())
        throws(SessionKitError) -> String
    {
        guard var target = URLComponents(url: url, resolvingAgainstBaseURL: true), target.scheme != nil,
            target.host != nil
        else {
            throw SessionKitError(code: .invalidInput, message: "a DPoP proof needs an absolute URL, not '\(url)'")
        }
        target.query = nil
        target.fragment = nil
        // The claims, written by JSONTextWriter: JSONEncoder cost three signatures' worth per proof
        // (see `Benchmarks/cli.sh`).
        var claims: [String: JSONValue] = [
            "jti": .string(PKCE.randomToken(bytes: 16)), "htm": .string(method.uppercased()),
            "htu": .string(target.string ?? url.absoluteString), "iat": .int(Int(now.timeIntervalSince1970)),
        ]
        if let accessToken {
            claims["ath"] = .string(Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.unsafeRawValue.utf8)))))
        }
        if let nonce { claims["nonce"] = .string(nonce) }
        do {
            let input = encodedHeader + "." + Base64URL.encode(Data(try JSONTextWriter.write(.object(claims))))
            return input + "." + Base64URL.encode(try signer.signature(for: Data(input.utf8)))
        } catch {
            throw SessionKitError(
                code: .invalidInput, message: "the DPoP proof could not be signed", underlyingError: error)
        }
    }
}
