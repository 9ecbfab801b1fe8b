import Crypto
import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The key that DPoP-bound tokens (RFC 9449) are bound to: a P-256 key that never leaves the device (or the
/// server), whose proofs show that a request comes from the holder of the tokens.
///
/// Set it on ``ProviderConfiguration/dpop`` and every token, revocation and userinfo request carries a proof;
/// the provider then binds the tokens to it (`cnf.jkt`, `token_type` DPoP), and a stolen token is useless
/// without the key. Keep it beside the session, so that it survives a relaunch:
///
/// ```swift
/// var configuration = try ProviderConfiguration(issuer: issuer, clientID: clientID)
/// configuration.dpop = try DPoPKey.stored(in: store)     // created on first use, then read back
/// ```
///
/// On an Apple device with a Secure Enclave the key is made there and never leaves it (the store keeps an
/// encrypted handle that only that device's enclave can use); elsewhere it is a software key kept in the store.
///
/// A lost key (a new device, a wiped store) cannot renew tokens bound to the old one: the provider refuses the
/// refresh token (`invalid_grant`), the session ends, and the user signs in again, with the new key. Never a
/// retry loop.
public struct DPoPKey: Sendable, Equatable, CustomStringConvertible {
    let signer: Signer
    /// The public key as a JWK's members (`kty`, `crv`, `x`, `y`), as proofs carry it.
    let jwk: [String: String]
    /// The JWK SHA-256 thumbprint of the public key (RFC 7638), the `jkt` tokens are bound to.
    public let thumbprint: String
    /// The proofs' JOSE header, base64url-encoded: `typ` dpop+jwt, `alg` ES256 and the public `jwk`, the same for
    /// every proof of this key.
    let encodedHeader: String

    /// A new random key: in the Secure Enclave where there is one and `secureEnclave` allows it, else in software.
    public static func generate(secureEnclave: Bool = true) -> DPoPKey {
        DPoPKey(Signer.generate(secureEnclave: secureEnclave))
    }

    /// The key whose stored form is `rawRepresentation`: the 32 bytes of a software P-256 private key, or a Secure
    /// Enclave key's handle as ``unsafeRawRepresentation`` gave it.
    ///
    /// - Throws: ``SessionKitError/Code/invalidInput`` when those are not a key's bytes (or the handle of another
    ///   device's enclave).
    public init(rawRepresentation: Data) throws(SessionKitError) {
        do {
            self.init(try Signer(stored: rawRepresentation))
        } catch {
            throw SessionKitError(
                code: .invalidInput, message: "the stored DPoP key is not a P-256 private key of this device",
                underlyingError: error)
        }
    }

    init(_ signer: Signer) {
        self.signer = signer
        let point = signer.publicKey.x963Representation
        let x = Base64URL.encode(point[1..<33])
        let y = Base64URL.encode(point[33..<65])
        jwk = ["kty": "EC", "crv": "P-256", "x": x, "y": y]
        // RFC 7638: the required members in lexicographic order, no white space.
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        thumbprint = Base64URL.encode(Data(SHA256.hash(data: Data(canonical.utf8))))
        let header = #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)"}}"#
        encodedHeader = Base64URL.encode(Data(header.utf8))
    }

    /// The key's stored form, for a store: a software key's private bytes, or a Secure Enclave key's handle (useless
    /// on any other device). Never print or log it.
    public var unsafeRawRepresentation: Data { signer.storedRepresentation }

    /// Whether the key lives in the Secure Enclave.
    public var isInSecureEnclave: Bool { signer.isSecureEnclave }

    /// The key's thumbprint, never the key.
    public var description: String { "DPoPKey(ES256, jkt: \(thumbprint))" }

    /// Two keys are the same when their public keys are: the same thumbprint.
    public static func == (lhs: DPoPKey, rhs: DPoPKey) -> Bool { lhs.thumbprint == rhs.thumbprint }
}
