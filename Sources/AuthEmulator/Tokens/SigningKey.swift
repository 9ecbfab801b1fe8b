import Crypto
import Foundation
import JWTKit
import SessionKitSupport

/// One of the emulator's signing keys: its `kid`, its private key in PEM (for the state file) and its public JWK.
struct SigningKey: Sendable, Codable {
    var kid: String
    var algorithm: AuthEmulator.SigningAlgorithm
    var privateKeyPEM: String
    var createdAt: Date
    /// When a newer key took over; the key stays published for the configured overlap after this.
    var retiredAt: Date?

    /// Generates a key whose material is none of `held` (RSA keys may come from ``RSAKeyPool`` in tests).
    static func generate(
        _ algorithm: AuthEmulator.SigningAlgorithm, now: Date, avoiding held: [SigningKey] = []
    ) throws -> SigningKey {
        let pem: String
        switch algorithm {
        case .rs256:
            do {
                pem = try RSAKeyPool.privateKeyPEM(avoiding: Set(held.map(\.privateKeyPEM)))
            } catch {
                throw AuthEmulatorError(code: .signing, message: "Cannot generate an RSA key", underlyingError: error)
            }
        case .es256:
            pem = ES256PrivateKey().pemRepresentation
        }
        return SigningKey(
            kid: "emu-" + SecureRandom.token(byteCount: 9),
            algorithm: algorithm,
            privateKeyPEM: pem,
            createdAt: now
        )
    }

    /// Adds the key to a jwt-kit collection under its `kid`, or as the collection's default key, whose tokens
    /// carry no `kid`, when `withKeyID` is `false`.
    func add(to collection: JWTKeyCollection, withKeyID: Bool = true) async throws {
        let identifier = withKeyID ? JWKIdentifier(string: kid) : nil
        switch algorithm {
        case .rs256:
            let key = try Insecure.RSA.PrivateKey(pem: privateKeyPEM)
            await collection.add(rsa: key, digestAlgorithm: .sha256, kid: identifier)
        case .es256:
            let key = try ES256PrivateKey(pem: privateKeyPEM)
            await collection.add(ecdsa: key, kid: identifier)
        }
    }

    /// The public JWK as published in `/.well-known/jwks.json`.
    func publicJWK() throws -> [String: JSONValue] {
        var jwk: [String: JSONValue] = ["kid": .string(kid), "use": "sig", "alg": .string(algorithm.rawValue)]
        switch algorithm {
        case .rs256:
            let primitives = try Insecure.RSA.PrivateKey(pem: privateKeyPEM).publicKey.getKeyPrimitives()
            jwk["kty"] = "RSA"
            jwk["n"] = .string(Base64URL.encode(primitives.modulus))
            jwk["e"] = .string(Base64URL.encode(primitives.publicExponent))
        case .es256:
            guard let parameters = try ES256PrivateKey(pem: privateKeyPEM).parameters else {
                throw AuthEmulatorError(code: .signing, message: "The EC key has no public coordinates")
            }
            jwk["kty"] = "EC"
            jwk["crv"] = "P-256"
            jwk["x"] = .string(parameters.x)
            jwk["y"] = .string(parameters.y)
        }
        return jwk
    }
}
