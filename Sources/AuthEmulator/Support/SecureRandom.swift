import Crypto
import Foundation

/// Unpredictable identifiers for codes, tokens and sessions.
enum SecureRandom {
    /// `byteCount` random bytes from the system generator, base64url without padding.
    static func token(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncoded
    }

    /// A user code like `BCDF-GHJK` from consonants only, as Auth0 does, so it spells no words.
    static func userCode() -> String {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return String(letters[0..<4]) + "-" + String(letters[4..<8])
    }

    /// The SHA-256 of a secret, hex-encoded, so stored state never holds the secret itself.
    static func digest(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

extension Data {
    /// Base64url without padding (RFC 7515 §2).
    var base64URLEncoded: String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
