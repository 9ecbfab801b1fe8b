import Crypto
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// PKCE (RFC 7636) with S256, and the random values an authorization request needs.
package enum PKCE {
    /// `count` bytes from the system's cryptographically secure generator, as base64url text.
    package static func randomToken(bytes count: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }

    /// The S256 challenge for `verifier`: base64url(SHA-256(verifier)).
    static func challenge(for verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
    }
}
