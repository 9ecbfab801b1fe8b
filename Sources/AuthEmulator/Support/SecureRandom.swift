import Foundation
import SessionKitSupport

/// Unpredictable identifiers for codes, tokens and sessions.
enum SecureRandom {
    /// `byteCount` random bytes from the system generator, base64url without padding.
    static func token(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }

    /// A user code like `BCDF-GHJK` from consonants only, as Auth0 does, so it spells no words.
    static func userCode() -> String {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return String(letters[0..<4]) + "-" + String(letters[4..<8])
    }
}
