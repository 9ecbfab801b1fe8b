import Crypto
import Foundation

/// Seals cookie values with AES-GCM under a key every instance shares, so that the browser holds them but can
/// neither read nor change them, and a value made up by anyone else is refused before the store is asked.
///
/// Each value is bound to its cookie's name (the associated data): a sealed sign-in cannot be replayed as a
/// session cookie or under another tab's name.
struct CookieSealer: Sendable {
    private let key: SymmetricKey

    /// Derives the cookie key from `secret` (HKDF-SHA256), so the same secret may serve other purposes too.
    init(secret: SymmetricKey) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: secret, info: Data("sessionkit-bff cookies v1".utf8), outputByteCount: 32)
    }

    /// `plaintext` sealed for the cookie `name`, as base64url text (a valid cookie value).
    func seal(_ plaintext: Data, name: String) -> String {
        // AES-GCM sealing with a fresh random nonce fails only on a wrong key size, which `init` rules out.
        let box = try? AES.GCM.seal(plaintext, using: key, authenticating: Data(name.utf8))
        return Base64URL.encode(box?.combined ?? Data())
    }

    /// The plaintext of a value sealed for the cookie `name`, or `nil` for anything else: another key, another
    /// name, a change of a single bit, or text that is not base64url.
    func open(_ value: String, name: String) -> Data? {
        guard value.utf8.count <= 4096, let combined = Base64URL.decode(value),
            let box = try? AES.GCM.SealedBox(combined: combined)
        else { return nil }
        return try? AES.GCM.open(box, using: key, authenticating: Data(name.utf8))
    }
}

/// base64url without padding (RFC 4648 §5), for cookie values.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Data? {
        guard text.utf8.allSatisfy({ $0.isBase64URL }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

extension UInt8 {
    fileprivate var isBase64URL: Bool {
        switch self {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
