import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import SessionKitSupport

/// Checks a DPoP proof (RFC 9449 section 4.3) as a provider and a resource server do: `typ` dpop+jwt, ES256 with a
/// public P-256 `jwk` in the header and a valid signature, `htm` and `htu` naming this request, `iat` within the
/// window, a `jti` never seen before, `ath` matching the access token when one is presented, and the nonce in
/// force when nonces are required. What it returns is the key's thumbprint (`jkt`).
struct DPoPVerifier: Sendable {
    let core: EmulatorCore

    /// Why a proof was refused: a bad proof, or one without the nonce now in force.
    enum Refusal: Error {
        case invalid(String)
        case useNonce(String)
    }

    private struct Claims: JWTPayload {
        var jti: String
        var htm: String
        var htu: String
        var iat: Int
        var ath: String?
        var nonce: String?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The thumbprint of the proof's key, once every check passed.
    func verify(_ proof: String, method: String, url: String, accessToken: String?) async throws(Refusal) -> String {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]),
            let header = try? JSONDecoder().decode(JWTHeader.self, from: headerData)
        else { throw .invalid("The DPoP proof is not a JWT.") }
        guard header.typ == "dpop+jwt" else { throw .invalid("The DPoP proof's typ is not dpop+jwt.") }
        guard header.alg == "ES256" else { throw .invalid("The DPoP proof's alg is not ES256.") }
        guard let jwk = header.jwk, jwk["kty"]?.asString == "EC", jwk["crv"]?.asString == "P-256",
            let x = jwk["x"]?.asString, let y = jwk["y"]?.asString, jwk["d"] == nil
        else { throw .invalid("The DPoP proof's jwk is not a public P-256 key.") }
        let claims: Claims
        do {
            let key = try ES256PublicKey(parameters: (x: x, y: y))
            claims = try await JWTKeyCollection().add(ecdsa: key).verify(proof, as: Claims.self)
        } catch {
            throw .invalid("The DPoP proof's signature does not verify with its jwk.")
        }
        guard claims.htm == method else { throw .invalid("The DPoP proof's htm is not \(method).") }
        guard Self.withoutQuery(claims.htu) == Self.withoutQuery(url) else {
            throw .invalid("The DPoP proof's htu is not this endpoint.")
        }
        let now = core.clock.now
        guard abs(Double(claims.iat) - now.timeIntervalSince1970) <= DPoPState.window else {
            throw .invalid("The DPoP proof's iat is outside the accepted window.")
        }
        if let accessToken {
            let expected = Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8))))
            guard claims.ath == expected else {
                throw .invalid("The DPoP proof's ath does not match the access token.")
            }
        }
        if await core.dpop.requiresNonce {
            let current = await core.dpop.nonce
            guard claims.nonce == current else { throw .useNonce(current) }
        }
        guard await core.dpop.use(jti: claims.jti, now: now) else {
            throw .invalid("The DPoP proof's jti was used before.")
        }
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Base64URL.encode(Data(SHA256.hash(data: Data(canonical.utf8))))
    }

    /// The request's `DPoP` header; `nil` without one, refused when there are several.
    static func proof(in request: Request) throws(Refusal) -> String? {
        let values = request.headers[values: HTTPField.Name("DPoP")!]
        guard values.count <= 1 else { throw .invalid("More than one DPoP header.") }
        return values.first
    }

    private static func withoutQuery(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }
}
